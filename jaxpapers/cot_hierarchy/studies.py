"""Studies shared by several claims (memoised per process with :func:`jaxpapers.core.memo.shared`)."""

from __future__ import annotations

import jax
import numpy as np

from jaxpapers.core import memo
from jaxpapers.cot_hierarchy.config import SimConfig
from jaxpapers.cot_hierarchy.tm import TM, busy_beaver, stack_tms


def key_rng(key: jax.Array, stream: int = 0) -> np.random.Generator:
    """A NumPy generator seeded from a JAX key (no compile: drawing small tables with jax.random costs a threefry
    compile of several CPU-seconds per process, more than the experiments that use them)."""
    data = np.asarray(jax.random.key_data(key)).ravel().tolist()
    return np.random.default_rng([*data, stream])


def random_tables(rng: np.random.Generator, ks: np.ndarray, gs: np.ndarray, p_halt: float) -> np.ndarray:
    """random_tm's rule for many sizes at once: tables [m, max k, max g, 3] (entry (q, s) halts with p_halt)."""
    m, K, G = len(ks), int(ks.max()), int(gs.max())
    work = (rng.random((m, K, G)) * (ks - 2)[:, None, None]).astype(np.int32)
    halt = rng.random((m, K, G)) < p_halt
    q = np.where(halt, (ks - 2)[:, None, None] + rng.integers(0, 2, (m, K, G)), work)
    w = (rng.random((m, K, G)) * gs[:, None, None]).astype(np.int32)
    d = rng.integers(-1, 2, (m, K, G))
    return np.stack([q, w, d], -1).astype(np.int32)


def machine_set(sc: SimConfig, key: jax.Array) -> tuple[TM, np.ndarray, np.ndarray, list[str]]:
    """H1/H3 machines (random, then BB(2..4) if asked) padded to one bucket, their inputs and lengths, labels."""
    return memo.shared("cot_machine_set", sc, key, fn=lambda: _machine_set(sc, key))


def _machine_set(sc, key):
    rng = key_rng(key)
    ks = rng.integers(sc.k_min, sc.k_max + 1, sc.n_tms)
    gs = np.asarray(sc.g_choices)[rng.integers(0, len(sc.g_choices), sc.n_tms)]
    deltas = random_tables(rng, ks, gs, sc.p_halt)
    tms = [TM(delta=deltas[i, :k, :g], k=int(k), g=int(g)) for i, (k, g) in enumerate(zip(ks, gs, strict=True))]
    labels = [f"random k={t.k} g={t.g}" for t in tms]
    xs = np.zeros((sc.n_tms, sc.inputs, sc.n_max), np.int32)
    ns = rng.integers(1, sc.n_max + 1, (sc.n_tms, sc.inputs)).astype(np.int32)
    for i, t in enumerate(tms):
        xs[i] = rng.integers(1, t.g, (sc.inputs, sc.n_max))
    if sc.busy_beavers:
        for b in (2, 3, 4):
            tms.append(busy_beaver(b))
            labels.append(f"BB({b})")
        xs = np.concatenate([xs, np.zeros((3, sc.inputs, sc.n_max), np.int32)])
        ns = np.concatenate([ns, np.zeros((3, sc.inputs), np.int32)])
    xs = np.where(np.arange(sc.n_max) < ns[..., None], xs, 0)
    return stack_tms(tms), xs, ns, labels
