"""D1: the vectorised solver is exact — against the pure-Python game reference and the independent Littlestone
recursion, deterministic and randomized, binary and multiclass (spec D1).

Checks (each a violation count or an error): JAX = reference = Ldim (deterministic); JAX = reference
(randomized, 1e-5); Ldim/2 ≤ randomized ≤ deterministic; values non-decreasing in T on nested domains;
TD ≤ AD ≤ standard-online (horizon |S|) value, with the vmapped TD checked against the memoised reference.
The solver runs as the other claims call it (``solver="auto"``): binary classes on the dense ternary DP
(:mod:`..dense`), multiclass ones on the mask solver (:mod:`..game`).
"""

from __future__ import annotations

import jax
import ml_collections
import numpy as np

from jaxpapers.adversary_directed import classes, reference
from jaxpapers.adversary_directed.config import ExactConfig
from jaxpapers.adversary_directed.game import solve_batch, transductive_value
from jaxpapers.adversary_directed.studies import FAMILIES, family_values
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass

NAMED = ("singletons", "sparse2", "thresholds", "intervals", "unions2", "all_subsets", "prefix")


def random_classes(cfg: ExactConfig, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The D1 random classes: binary (T ≤ binary_t_max, |H| ≤ binary_m_max) and multiclass (|S| = multi_t)."""
    rng = np.random.default_rng(seed)
    binary = [
        classes.random_class(
            int(rng.integers(1 << 31)),
            int(rng.integers(1, cfg.binary_t_max + 1)),
            int(rng.integers(2, cfg.binary_m_max + 1)),
            2,
        )
        for _ in range(cfg.binary_classes)
    ]
    multi = [
        classes.random_class(
            int(rng.integers(1 << 31)),
            cfg.multi_t,
            int(rng.integers(2, cfg.multi_m_pad + 1)),
            int(rng.integers(2, cfg.multi_labels_max + 1)),
        )
        for _ in range(cfg.multi_classes)
    ]
    return binary, multi


def check_classes(
    mats, *, m_pad: int, t_pad: int, n_labels: int, chunk_size: int, solver: str = "auto"
) -> dict[str, np.ndarray]:
    """Solver (JAX: one program, both learners in one loop) and references on every class.

    ``solver="auto"`` is the path the claims take: the dense ternary DP for binary classes, the mask solver
    (padded to ``t_pad``, ``m_pad``, ``n_labels``) otherwise."""
    both = solve_batch(mats, "both", t_pad=t_pad, m_pad=m_pad, n_labels=n_labels, chunk_size=chunk_size, solver=solver)
    return {
        "jax_det": both[:, 0],
        "jax_rand": both[:, 1],
        "ref_det": np.array([reference.game_value(m) for m in mats]),
        "ref_rand": np.array([reference.game_value(m, randomized=True) for m in mats]),
        "ldim": np.array([reference.ldim(m) for m in mats], np.float64),
    }


def check_named(t_max: int, randomized_t_max: int) -> dict[str, dict[str, np.ndarray]]:
    """The named families on T = 1..t_max through the shared sweep programs (``studies.family_values``)."""
    out = {}
    for name in NAMED:
        Ts = list(range(1, t_max + 1))
        Tr = list(range(1, randomized_t_max + 1))
        mats = [FAMILIES[name](T) for T in Ts]
        out[name] = {
            "jax_det": family_values(name, Ts),
            "ref_det": np.array([reference.game_value(m) for m in mats]),
            "ldim": np.array([reference.ldim(m) for m in mats], np.float64),
            "jax_rand": family_values(name, Tr, randomized=True),
            "ref_rand": np.array([reference.game_value(m, randomized=True) for m in mats[: len(Tr)]]),
        }
        out[name]["ldim_rand"] = out[name]["ldim"][: len(Tr)]
        out[name]["jax_det_rand"] = out[name]["jax_det"][: len(Tr)]
    return out


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """D1 on random binary, random multiclass and named classes."""
    del key
    ex = to_dataclass(ExactConfig, cfg.exact)
    binary, multi = random_classes(ex, int(cfg.seed))
    t_pad = 4 * -(-max(ex.binary_t_max, ex.multi_t) // 4)
    m_pad = 1 << (max(ex.binary_m_max, ex.multi_m_pad) - 1).bit_length()
    n_labels = 1 << (ex.multi_labels_max - 1).bit_length()
    kw = dict(m_pad=m_pad, t_pad=t_pad, n_labels=n_labels, chunk_size=ex.chunk_size)
    parts = [check_classes(binary, **kw), check_classes(multi, **kw)]  # dense path, mask solver
    rnd = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    named = check_named(ex.named_t_max, ex.randomized_named_t_max)
    res = [rnd] + [
        {"jax_det": r["jax_det_rand"], "ldim": r["ldim_rand"], "jax_rand": r["jax_rand"], "ref_rand": r["ref_rand"]}
        for r in named.values()
    ]
    det_mismatch = int(np.sum((rnd["jax_det"] != rnd["ref_det"]) | (rnd["ref_det"] != rnd["ldim"]))) + sum(
        int(np.sum((r["jax_det"] != r["ref_det"]) | (r["ref_det"] != r["ldim"]))) for r in named.values()
    )
    rand_err = max(float(np.max(np.abs(r["jax_rand"] - r["ref_rand"]))) for r in res)
    order_viol = sum(
        int(np.sum((r["jax_rand"] < r["ldim"] / 2 - 1e-6) | (r["jax_rand"] > r["jax_det"] + 1e-6))) for r in res
    )
    seqs = np.stack([named[n]["jax_det"] for n in NAMED])
    monotone_viol = int(np.sum(np.diff(seqs, axis=1) < 0))

    # TD ≤ AD ≤ standard online (same domain, horizon |S|, repeats allowed, instances not announced).
    td_set = multi[: ex.transductive_classes]
    td_jax = np.array([transductive_value(m) for m in td_set])
    td_ref = np.array([reference.transductive_value(m) for m in td_set])
    ad = rnd["jax_det"][len(binary) : len(binary) + len(td_set)]
    std = np.array([reference.horizon_ldim(m, m.shape[1]) for m in td_set], np.float64)
    chain_viol = int(np.sum((td_jax > ad) | (ad > std)))
    td_mismatch = int(np.sum(td_jax != td_ref))
    n_classes = len(binary) + len(multi) + len(NAMED) * ex.named_t_max
    nb = len(binary)
    return Measurement(
        measured={
            "det_mismatches": det_mismatch,
            "rand_max_abs_err": rand_err,
            "order_violations": order_viol,
            "monotone_violations": monotone_viol,
            "td_ad_std_violations": chain_viol,
            "td_mismatches": td_mismatch,
        },
        predicted={
            "det_mismatches": 0,
            "rand_max_abs_err": 0.0,
            "order_violations": 0,
            "monotone_violations": 0,
            "td_ad_std_violations": 0,
            "td_mismatches": 0,
        },
        n=n_classes,
        details={
            "classes": {"binary": len(binary), "multiclass": len(multi), "named": len(NAMED) * ex.named_t_max},
            "named_values": {n: seqs[i].tolist() for i, n in enumerate(NAMED)},
            "named_randomized_values": {n: named[n]["jax_rand"].tolist() for n in NAMED},
            "binary_value_histogram": np.bincount(rnd["jax_det"][:nb].astype(int)).tolist(),
            "multiclass_value_histogram": np.bincount(rnd["jax_det"][nb:].astype(int)).tolist(),
            "td_lt_ad": int(np.sum(td_jax < ad)),
        },
    )
