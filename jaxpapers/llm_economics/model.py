"""The profit-maximising firm (our reconstruction of the paper's model; spec "Firm model").

A firm picks model size N and training tokens D, gets reducible loss ℓ(N, D) from the loss law, revenue
R(ℓ) from consumer adoption (``demand.py``) and pays training 6ND/E dollars (E = hardware efficiency in
FLOP/$) plus an optional inference cost R(ℓ)·ρN/E (each adopter pays p and uses Q tokens of 2N FLOPs each,
ρ = 2Q/p):

    Π(N, D; E) = R(ℓ)·(1 − ρN/E) − 6ND/E.

Decisions live in log space, z = (log N, log D), and the solvers maximise the scaled profit J = Π/R0, which is
O(1)-O(1e5) on every grid while Π itself spans 10+ decades.

Data-bound regime (D fixed at the available data D_max), with a data-constrained quality law (``cap_kind``):

* ``hard`` (default, our choice): parameters beyond N_opt(D) add nothing: ℓ = A·min(N, N_opt(D))^{-α} + B·D^{-β};
* ``tpp``: the same with a fixed tokens-per-parameter ratio, N_opt(D) = D/``tokens_per_param`` (= D/20);
* ``soft``: Muennighoff et al. 2023: decisions (log N, log(epochs − 1)) over U = D_max unique tokens, quality
  from the effective N′ and D′, training cost 6·N·U·epochs/E.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from jaxtyping import ArrayLike, Bool, Float

from jaxpapers.core.checks import check_choice, check_range, is_traced
from jaxpapers.core.errors import ConfigError
from jaxpapers.llm_economics import demand as demand_lib
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.config import CALIBRATED_R0, CAP_KINDS, FirmConfig

Scalar = Float[ArrayLike, "..."] | float  # one value, or a batch (leaves carry the batch axis)


@struct.dataclass(kw_only=True)
class FirmParams:
    """Economic parameters of one firm (a pytree).

    Numeric fields (and the law's constants) are leaves, so a batch of firms is a ``FirmParams`` whose leaves
    carry a leading axis and ``jax.vmap`` sweeps any of them; ``demand`` and ``cap_kind`` are static (they choose
    code paths). Defaults are the spec's calibration point.

    Attributes:
      law: loss-law constants (``scaling_laws.BESIROGLU`` by default).
      R0: revenue at ℓ = 1 nat in the unsaturated Pareto region ($); p·M = R0·ℓ0^{-γ}.
      gamma: threshold-law exponent γ.
      rho: inference cost coefficient ρ = 2Q/p (FLOP per $ of revenue per parameter); 2e5 ≈ $10 per 1M tokens.
      E: hardware efficiency (FLOP/$).
      D_max: available unique training tokens (data-bound regime only).
      ell0: adoption saturates at ℓ ≤ ell0 (Pareto) / median threshold (log-logistic) / lower end (log-uniform).
      ell_max: upper end of log-uniform thresholds.
      tokens_per_param: N_opt(D) = D / tokens_per_param for ``cap_kind="tpp"``.
      r_d_star, r_n_star: Muennighoff's R_D* and R_N* for ``cap_kind="soft"``.
      demand: 'pareto' | 'loglogistic' | 'loguniform'.
      cap_kind: 'hard' | 'tpp' | 'soft' (data-bound quality law).
    """

    law: sl.LossLaw = sl.BESIROGLU
    R0: Scalar = CALIBRATED_R0
    gamma: Scalar = 2.5
    rho: Scalar = 0.0
    E: Scalar = 5e17
    D_max: Scalar = 1e12
    ell0: Scalar = 1e-3
    ell_max: Scalar = 10.0
    tokens_per_param: Scalar = 20.0
    r_d_star: Scalar = sl.MUENNIGHOFF_R_D_STAR
    r_n_star: Scalar = sl.MUENNIGHOFF_R_N_STAR
    demand: str = struct.field(pytree_node=False, default="pareto")
    cap_kind: str = struct.field(pytree_node=False, default="hard")

    def __post_init__(self):
        # Only the static fields are checked here: this also runs when JAX rebuilds the pytree from tracers.
        check_choice("demand", self.demand, demand_lib.DEMANDS)
        check_choice("cap_kind", self.cap_kind, CAP_KINDS)

    @classmethod
    def from_config(cls, cfg: FirmConfig, **overrides: Any) -> FirmParams:
        """One firm from the ``firm`` config group; ``overrides`` replace fields (``E=1e19``, ``law="besiroglu"``).

        ``law`` may be a name (looked up with ``scaling_laws.get_law``) or a :class:`scaling_laws.LossLaw`.
        """
        fields = {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)}
        fields.update(overrides)
        if isinstance(fields["law"], str):
            fields["law"] = sl.get_law(fields["law"])
        return cls(**fields)


_POSITIVE = ("R0", "gamma", "E", "D_max", "ell0", "ell_max", "tokens_per_param", "r_d_star", "r_n_star")


_NONNEGATIVE = ("E0", "rho")  # may be 0; every other numeric field must be > 0 (and all finite)


@functools.lru_cache(maxsize=64)
def _strictly_positive_columns(treedef) -> np.ndarray:
    """Bool mask over the flattened leaves of a ``FirmParams`` treedef: True where the field must be > 0."""
    names = [
        path[-1].name
        for path, _ in jax.tree_util.tree_flatten_with_path(jax.tree.unflatten(treedef, [0] * treedef.num_leaves))[0]
    ]
    return np.array([name not in _NONNEGATIVE for name in names])


def rows_in_range(rows: np.ndarray, treedef, demand: str) -> bool:
    """Whether every firm of a packed batch (``rows[i]`` = the flattened leaves of firm i) is valid.

    One vectorised test for the hot path of the sweeps; on False, :func:`validate_params` names the bad value.
    """
    if demand == "loguniform":
        return False  # the ell_max > ell0 test needs the named fields: leave it to validate_params
    strict = _strictly_positive_columns(treedef)
    return bool(np.all(np.isfinite(rows)) and np.all(rows[:, strict] > 0) and np.all(rows[:, ~strict] >= 0))


def validate_params(params: FirmParams) -> None:
    """Raises ConfigError naming the first field (and element, for batches) out of range; tracers pass."""
    sl.validate_law(params.law, where="law")
    for name in _POSITIVE:
        check_range(name, getattr(params, name), 0.0, math.inf, lo_open=True, hi_open=True)
    check_range("rho", params.rho, 0.0, math.inf, hi_open=True)
    if params.demand == "loguniform" and not is_traced(params.ell0) and not is_traced(params.ell_max):
        lo, hi = np.broadcast_arrays(np.asarray(params.ell0, np.float64), np.asarray(params.ell_max, np.float64))
        bad = np.argwhere(np.atleast_1d(hi <= lo))
        if bad.size:
            i = tuple(bad[0]) if hi.ndim else ()
            raise ConfigError(f"ell_max={float(hi[i])!r} must exceed ell0={float(lo[i])!r} for the log-uniform demand")


def gamma_lambda(params: FirmParams) -> Float[ArrayLike, "..."]:
    """γ·λ: revenue grows like C^{γλ} along the compute-optimal frontier (λ = αβ/(α+β))."""
    return params.gamma * sl.frontier_constants(params.law).lam


def is_bounded(params: FirmParams) -> Bool[ArrayLike, "..."]:
    """False where the compute-bound problem has no interior optimum (traced-friendly, for NaN masking).

    With Pareto demand and no inference cost, profit along the frontier is R0·K^{-γ}·C^{γλ} − C/E: for γλ ≥ 1
    revenue outgrows cost and profit increases until adoption saturates (ℓ = ℓ0), far outside the model. An
    inference cost (ρ > 0) bounds N < E/ρ, and the saturating laws bound revenue, so those stay solvable.
    """
    unbounded = (gamma_lambda(params) >= 1.0) & (jnp.asarray(params.rho) == 0.0)
    if params.demand != "pareto":
        unbounded = jnp.zeros_like(unbounded)
    return ~unbounded


def check_bounded(params: FirmParams) -> None:
    """Raises ConfigError on concrete parameters with γλ ≥ 1 (Pareto, ρ = 0): profit is then unbounded."""
    if any(is_traced(x) for x in jax.tree.leaves(params)):
        return
    bounded = np.asarray(is_bounded(params))
    if not np.all(bounded):
        idx = tuple(int(i) for i in np.argwhere(~bounded)[0]) if bounded.ndim else ()
        gl = float(np.broadcast_to(np.asarray(gamma_lambda(params)), bounded.shape)[idx])
        gamma = float(np.broadcast_to(np.asarray(params.gamma), bounded.shape)[idx])
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        raise ConfigError(
            f"gamma{where}={gamma!r} gives gamma*lambda = {gl:.6g} >= 1: the compute-bound profit grows without "
            f"limit (revenue ∝ C^(gamma*lambda) outgrows the cost C/E); allowed gamma < 1/lambda = "
            f"{gamma / gl:.6g} for Pareto demand without inference cost (or set rho > 0, or demand='loglogistic')"
        )


def _scaled_profit(ell, log_n, log_tokens, params: FirmParams):
    """Π/R0 from ℓ, log N and log(tokens trained): (R/R0)(1 − ρN/E) − 6·N·tokens/(E·R0)."""
    rev = demand_lib.revenue_over_r0(ell, params)
    inference = params.rho * jnp.exp(log_n - jnp.log(params.E))
    train = jnp.exp(math.log(6.0) + log_n + log_tokens - jnp.log(params.E) - jnp.log(params.R0))
    return rev * (1.0 - inference) - train


def scaled_profit(z: Float[ArrayLike, "2"], params: FirmParams) -> Float[ArrayLike, ""]:
    """J(z) = Π(e^{z1}, e^{z2}; E)/R0, the compute-bound objective (z = (log N, log D))."""
    ell = sl.reducible_loss_log(params.law, z[0], z[1])
    return _scaled_profit(ell, z[0], z[1], params)


def profit(z: Float[ArrayLike, "2"], params: FirmParams) -> Float[ArrayLike, ""]:
    """Π(N, D; E) = R(ℓ)·(1 − ρN/E) − 6ND/E in dollars, at z = (log N, log D)."""
    return params.R0 * scaled_profit(z, params)


def log_n_cap(params: FirmParams) -> Float[ArrayLike, "..."]:
    """log N_opt(D_max): where extra parameters stop helping (``hard``/``soft``: Chinchilla; ``tpp``: D/20)."""
    log_d = jnp.log(params.D_max)
    if params.cap_kind == "tpp":
        return log_d - jnp.log(params.tokens_per_param)
    return sl.log_n_opt_for_data(params.law, log_d)


def data_bound_loss(z: Float[ArrayLike, " k"], params: FirmParams) -> tuple[Float[ArrayLike, ""], Float[ArrayLike, ""]]:
    """(ℓ, log tokens trained) in the data-bound regime.

    ``hard``/``tpp``: z = (log N,), ℓ = A·min(N, N_cap)^{-α} + B·D_max^{-β}, tokens = D_max.
    ``soft``: z = (log N, log(epochs − 1)), Muennighoff's N′, D′, tokens = D_max·epochs.
    """
    log_d = jnp.log(params.D_max)
    if params.cap_kind == "soft":
        log_n_eff, log_d_eff = sl.muennighoff_effective_log(
            params.law, z[0], z[1], log_d, params.r_d_star, params.r_n_star
        )
        return sl.reducible_loss_log(params.law, log_n_eff, log_d_eff), log_d + jnp.log1p(jnp.exp(z[1]))
    log_n_eff = jnp.minimum(z[0], log_n_cap(params))
    return sl.reducible_loss_log(params.law, log_n_eff, log_d), log_d


def data_bound_scaled_profit(z: Float[ArrayLike, " k"], params: FirmParams) -> Float[ArrayLike, ""]:
    """Π/R0 in the data-bound regime (see :func:`data_bound_loss` for z)."""
    ell, log_tokens = data_bound_loss(z, params)
    return _scaled_profit(ell, z[0], log_tokens, params)


# ------------------------------------------------------------------------------------------------------------
# Batches of firms
# ------------------------------------------------------------------------------------------------------------


def batch_size(params: FirmParams) -> int | None:
    """The common leading dimension of a batch of firms (None for a single firm)."""
    sizes = {np.shape(x)[0] for x in jax.tree.leaves(params) if np.ndim(x) > 0}
    if len(sizes) > 1:
        raise ConfigError(f"FirmParams leaves have different leading sizes {sorted(sizes)}; broadcast them first")
    return sizes.pop() if sizes else None


def broadcast_params(params: FirmParams, n: int) -> FirmParams:
    """Every numeric leaf as a float64 array of shape (n,).

    Concrete leaves become NumPy arrays (host-side set-up costs microseconds, not one dispatch per leaf);
    traced leaves (under ``jax.vmap``/``jit``) are broadcast with ``jnp`` inside the trace.
    """

    def leaf(x):
        if not is_traced(x):
            return np.array(np.broadcast_to(np.asarray(x, dtype=np.float64), (n,)))
        return jnp.broadcast_to(jnp.asarray(x, dtype=jnp.float64), (n,))

    return jax.tree.map(leaf, params)


def param_grid(base: FirmParams, axes: Mapping[str, Sequence[float] | np.ndarray]) -> tuple[FirmParams, tuple]:
    """The cartesian product of ``axes`` over ``base`` as one flat batch, and the grid's shape.

    ``axes`` maps field names (``"E"``, ``"gamma"``, ``"rho"``, ...; law constants as ``"law.A"``) to values;
    the first axis varies slowest. Reshape results with ``x.reshape(shape + x.shape[1:])``.
    """
    names = list(axes)
    values = [np.asarray(axes[k], dtype=np.float64).ravel() for k in names]
    shape = tuple(v.size for v in values)
    mesh = np.meshgrid(*values, indexing="ij") if names else []
    flat = {k: m.ravel() for k, m in zip(names, mesh, strict=True)}
    n = int(np.prod(shape)) if names else 1
    law_fields = {f.name for f in dataclasses.fields(sl.LossLaw) if f.name != "name"}
    firm_fields = {f.name for f in dataclasses.fields(FirmParams)} - {"law", "demand", "cap_kind"}
    law_updates, firm_updates = {}, {}
    for k, v in flat.items():
        if k.startswith("law.") and k[4:] in law_fields:
            law_updates[k[4:]] = v
        elif k in firm_fields:
            firm_updates[k] = v
        else:
            allowed = sorted(firm_fields) + [f"law.{f}" for f in sorted(law_fields)]
            check_choice("param_grid axis", k, allowed)
    out = broadcast_params(base, n)
    out = out.replace(law=out.law.replace(**law_updates))
    out = out.replace(**firm_updates)
    return out, shape


def concat_params(batches: Sequence[FirmParams]) -> FirmParams:
    """One batch from several (single firms or batches) with the same ``demand`` and ``cap_kind``.

    Laws of different names are allowed; the batch's law is then named ``"mixed"``.
    """
    rows = [broadcast_params(p, batch_size(p) or 1) for p in batches]
    if len({p.law.name for p in rows}) > 1:
        rows = [p.replace(law=p.law.replace(name="mixed")) for p in rows]
    return jax.tree.map(lambda *xs: np.concatenate(xs) if not any(map(is_traced, xs)) else jnp.concatenate(xs), *rows)
