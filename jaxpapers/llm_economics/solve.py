"""Profit-maximising (N, D): jitted damped Newton with autodiff derivatives, vmapped over firms (spec "Solver").

* :func:`damped_newton` maximises a smooth objective with ``jax.grad``/``jax.hessian`` steps and a
  backtracking line search (halve the step until the objective increases), for a fixed number of iterations
  in ``lax.fori_loop``; where the Hessian is not negative definite it steps along the gradient instead.
* :func:`adam_ascent` is the fallback (optax Adam, lr 0.05, 3000 steps) for rows whose Hessian is not
  negative definite at the start; its result is polished by Newton.
* :func:`solve_compute_bound` / :func:`sweep_compute_bound`: compute-bound regime over z = (log N, log D),
  started on the compute-optimal frontier at the best C of a coarse 1-D search (not the closed form).
* :func:`solve_data_bound` / :func:`sweep_data_bound`: D fixed at D_max. Hard (and tokens-per-parameter) cap:
  bisection on dJ/dlog N over [log N_cap − 20, log N_cap], returning the cap when the derivative there is still
  positive; soft cap (Muennighoff): 2-D Newton over (log N, log(epochs − 1)) from a coarse 2-D grid.
* :func:`solve_frontier`: the Chinchilla allocation (minimise ℓ at fixed C; revenue off), as a solver check.

Every sweep is one jitted computation over a batch of firms (``FirmParams`` with a leading axis), chunked
with ``lax.map`` to bound memory and compiled once per batch shape. The Adam fallback is decided per chunk
(``lax.cond`` on "any row needs it"), so well-posed batches never pay for it. Float64 is required.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from jaxtyping import Array, ArrayLike, Bool, Float

from jaxpapers.core import sim
from jaxpapers.core.checks import is_traced, require_x64
from jaxpapers.llm_economics import demand as demand_lib
from jaxpapers.llm_economics import model
from jaxpapers.llm_economics import scaling_laws as sl
from jaxpapers.llm_economics.config import SolverOptions
from jaxpapers.llm_economics.model import FirmParams

Objective = Callable[[Float[Array, " k"], Any], Float[Array, ""]]


DEFAULT_OPTIONS = SolverOptions()


# ------------------------------------------------------------------------------------------------------------
# Generic maximisers
# ------------------------------------------------------------------------------------------------------------


class NewtonResult(NamedTuple):
    """Where a maximiser stopped: z, J(z), |∇J(z)| and whether ∇²J(z) is negative definite there."""

    z: Float[Array, "*b k"]
    value: Float[ArrayLike, "*b"]
    grad_norm: Float[ArrayLike, "*b"]
    hessian_nd: Bool[ArrayLike, "*b"]


def _negative_definite(h: Float[Array, "k k"]) -> Bool[Array, ""]:
    """Whether a 1×1 or 2×2 Hessian is negative definite (explicit: no LAPACK call, cheap to compile)."""
    if h.shape == (1, 1):
        return h[0, 0] < 0
    if h.shape == (2, 2):
        return (h[0, 0] < 0) & (h[0, 0] * h[1, 1] - h[0, 1] * h[1, 0] > 0)
    return jnp.max(jnp.linalg.eigvalsh(h)) < 0.0


def _solve_small(h: Float[Array, "k k"], g: Float[Array, " k"]) -> Float[Array, " k"]:
    """h⁻¹g for 1×1 and 2×2 systems by Cramer's rule (else LAPACK)."""
    if h.shape == (1, 1):
        return g / h[0, 0]
    if h.shape == (2, 2):
        det = h[0, 0] * h[1, 1] - h[0, 1] * h[1, 0]
        return jnp.stack([h[1, 1] * g[0] - h[0, 1] * g[1], h[0, 0] * g[1] - h[1, 0] * g[0]]) / det
    return jnp.linalg.solve(h, g)


def _value_grad_hessian(fun: Objective, z: Float[Array, " k"], args: Any):
    """J, ∇J and ∇²J in one forward-over-reverse pass (``jax.linearize`` of ``value_and_grad``)."""
    (value, grad), tangent = jax.linearize(lambda x: jax.value_and_grad(fun)(x, args), z)
    hess = jax.vmap(lambda e: tangent(e)[1])(jnp.eye(z.shape[0], dtype=z.dtype))
    return value, grad, hess


def damped_newton(
    fun: Objective, z0: Float[Array, " k"], args: Any, *, iters: int = 60, max_halvings: int = 40
) -> NewtonResult:
    """Maximises ``fun(z, args)`` from ``z0``: Newton steps −H⁻¹g with backtracking (spec "Solver", step 2).

    Each of ``iters`` iterations takes the Newton direction when the Hessian is negative definite and it is an
    ascent direction, else the gradient direction scaled to unit length, and halves the step until the
    objective strictly increases (at most ``max_halvings`` times, after which the iterate stays put). A Newton
    step whose predicted gain ½·gᵀH⁻¹g is below the rounding noise of J is taken without the test: comparing
    values cannot resolve it, and in that quadratic region the Newton step is what converges.
    """
    noise = 64 * jnp.finfo(z0.dtype).eps

    def step(_, z):
        j0, g, h = _value_grad_hessian(fun, z, args)
        newton = -_solve_small(h, g)
        gain = jnp.dot(newton, g)
        use_newton = _negative_definite(h) & (gain > 0) & jnp.all(jnp.isfinite(newton))
        gnorm = jnp.linalg.norm(g)
        direction = jnp.where(use_newton, newton, g / jnp.where(gnorm > 0, gnorm, 1.0))
        trust = use_newton & (0.5 * gain <= noise * (1.0 + jnp.abs(j0)))

        def shorter(carry):
            t, k, _ = carry
            return t / 2, k + 1, fun(z + (t / 2) * direction, args)

        t, _, j_new = jax.lax.while_loop(
            lambda c: ~trust & ~(c[2] > j0) & (c[1] < max_halvings), shorter, (1.0, 0, fun(z + direction, args))
        )
        return jnp.where(trust | (j_new > j0), z + t * direction, z)

    z = jax.lax.fori_loop(0, iters, step, z0)
    value, grad, hess = _value_grad_hessian(fun, z, args)
    return NewtonResult(z, value, jnp.linalg.norm(grad), _negative_definite(hess))


def adam_ascent(fun: Objective, z0: Float[Array, " k"], args: Any, *, lr: float = 0.05, steps: int = 3000):
    """Maximises ``fun(z, args)`` with optax Adam (the fallback of spec "Solver", step 2); returns the last z."""
    tx = optax.adam(lr)
    grad = jax.grad(fun)

    def step(_, carry):
        z, state = carry
        updates, state = tx.update(-grad(z, args), state, z)
        return optax.apply_updates(z, updates), state

    z, _ = jax.lax.fori_loop(0, steps, step, (z0, tx.init(z0)))
    return z


def maximize_batch(
    fun: Objective, z0: Float[Array, "b k"], args: Any, options: SolverOptions = DEFAULT_OPTIONS
) -> tuple[NewtonResult, Bool[Array, " b"]]:
    """Damped Newton on every row, started from Adam's result for rows whose start Hessian is not negative definite.

    Returns the results and the rows that used the fallback. Adam runs only when some row of this batch needs
    it (a real branch on a batch-level predicate; under an outer ``vmap`` it becomes a select and always runs).
    """
    newton = functools.partial(damped_newton, fun, iters=options.newton_iters, max_halvings=options.max_halvings)
    adam = functools.partial(adam_ascent, fun, lr=options.adam_lr, steps=options.adam_steps)
    needs = ~jax.vmap(lambda z, a: _negative_definite(jax.hessian(fun)(z, a)))(z0, args)
    start = jax.lax.cond(
        jnp.any(needs), lambda z: jnp.where(needs[:, None], jax.vmap(adam)(z, args), z), lambda z: z, z0
    )
    return jax.vmap(newton)(start, args), needs


# ------------------------------------------------------------------------------------------------------------
# Compute-bound regime
# ------------------------------------------------------------------------------------------------------------


@struct.dataclass
class Solution:
    """The firm's optimum (one firm, or a batch with a leading axis). Dollars for money, FLOPs for C.

    ``grad_norm`` is |∇J| at the returned point (J = Π/R0 in log coordinates) and ``hessian_nd`` whether it is a
    strict local maximum; ``used_fallback`` marks rows that needed Adam. Rows without an interior optimum
    (γλ ≥ 1 in a sweep) are NaN.
    """

    N: Float[ArrayLike, "*b"]
    D: Float[ArrayLike, "*b"]
    C: Float[ArrayLike, "*b"]
    spend: Float[ArrayLike, "*b"]
    revenue: Float[ArrayLike, "*b"]
    profit: Float[ArrayLike, "*b"]
    ell: Float[ArrayLike, "*b"]
    grad_norm: Float[ArrayLike, "*b"]
    hessian_nd: Bool[ArrayLike, "*b"]
    used_fallback: Bool[ArrayLike, "*b"]


def start_log_c(params: FirmParams, options: SolverOptions = DEFAULT_OPTIONS) -> Float[Array, " p"]:
    """The grid of log C searched for the compute-bound start: ``init_points`` points over ± ``init_half_width``
    nats around log(E·R0), the compute whose training spend C/E equals the revenue scale R0.

    An economic scale, not the answer: the closed-form optimum is not used, so the optimum falls between grid
    points and the claims measure what Newton does (``newton_iters=0`` returns the start; a test shows that
    E2 and E3 then fail).
    """
    centre = jnp.log(params.E) + jnp.log(params.R0)
    return centre + jnp.linspace(-options.init_half_width, options.init_half_width, options.init_points)


def frontier_start(params: FirmParams, options: SolverOptions = DEFAULT_OPTIONS) -> Float[Array, "2"]:
    """The frontier point (log N_opt(C), log D_opt(C)) of highest profit over the grid :func:`start_log_c`."""
    log_n, log_d, _ = sl.frontier_log(params.law, start_log_c(params, options))
    z = jnp.stack([log_n, log_d], axis=-1)
    j = jax.vmap(model.scaled_profit, in_axes=(0, None))(z, params)
    return z[jnp.argmax(jnp.where(jnp.isnan(j), -jnp.inf, j))]


def _safe_gamma(params: FirmParams) -> tuple[FirmParams, Bool[ArrayLike, "*b"]]:
    """Rows without an interior optimum get a harmless γ (γλ = 1/2) so the batch computes; they are masked later."""
    bounded = model.is_bounded(params)
    lam = sl.frontier_constants(params.law).lam
    return params.replace(gamma=jnp.where(bounded, params.gamma, 0.5 / lam)), bounded


def _nan_where(mask, tree):
    return jax.tree.map(lambda x: jnp.where(mask, x, jnp.nan) if jnp.issubdtype(x.dtype, jnp.floating) else x, tree)


def _compute_bound_batch(params: FirmParams, options: SolverOptions) -> Solution:
    safe, bounded = _safe_gamma(params)
    z0 = jax.vmap(lambda p: frontier_start(p, options))(safe)
    res, fallback = maximize_batch(model.scaled_profit, z0, safe, options)
    log_n, log_d = res.z[:, 0], res.z[:, 1]
    ell = sl.reducible_loss_log(safe.law, log_n, log_d)
    log_c = math.log(6.0) + log_n + log_d
    sol = Solution(
        N=jnp.exp(log_n),
        D=jnp.exp(log_d),
        C=jnp.exp(log_c),
        spend=jnp.exp(log_c - jnp.log(safe.E)),
        revenue=demand_lib.revenue(ell, safe),
        profit=safe.R0 * res.value,
        ell=ell,
        grad_norm=res.grad_norm,
        hessian_nd=res.hessian_nd,
        used_fallback=fallback,
    )
    return _nan_where(bounded, sol)


class _Packed(NamedTuple):
    """A batch of firms as one host array (one transfer per call instead of one per leaf) and its layout."""

    rows: Float[Array, "bucket leaves"]  # row i = the flattened numeric leaves of firm i; padded to a bucket
    treedef: Any  # FirmParams structure (with its static demand/cap_kind)
    n: int  # true rows
    single: bool  # the caller passed one firm (scalar leaves)


def _prepare(params: FirmParams, options: SolverOptions) -> _Packed:
    """Validates ``params`` and packs them, padded to a bucket: a batch of 1, 6 or 21 firms hits the same
    compiled program; padded rows repeat the last firm and are dropped by :func:`_finish`."""
    n = model.batch_size(params)
    single = n is None
    n = 1 if single else n
    bucket = sim.bucket_size(n, options.chunk_size)
    leaves, treedef = jax.tree.flatten(params)
    if any(is_traced(x) for x in leaves):  # under an outer vmap/jit: nothing to inspect or transfer
        rows = jnp.stack(jax.tree.leaves(model.broadcast_params(params, n)), axis=1)
        return _Packed(sim.pad_rows(rows, bucket), treedef, n, single)
    rows = np.empty((bucket, len(leaves)))  # filled column by column: no per-leaf broadcast copies
    for column, leaf in enumerate(leaves):
        rows[:n, column] = leaf
    rows[n:] = rows[n - 1]
    if not model.rows_in_range(rows[:n], treedef, params.demand):
        model.validate_params(params)  # raises, naming the field and element
    return _Packed(rows, treedef, n, single)


def _unpack(rows: Float[Array, "b leaves"], treedef) -> FirmParams:
    return jax.tree.unflatten(treedef, [rows[:, i] for i in range(rows.shape[1])])


@functools.partial(jax.jit, static_argnames=("treedef", "options"))
def _compute_bound_jit(rows: Float[Array, "b leaves"], treedef, options: SolverOptions) -> Solution:
    batch = _unpack(rows, treedef)
    return sim.map_chunks(lambda p: _compute_bound_batch(p, options), batch, options.chunk_size)


@functools.partial(jax.jit, static_argnames=("n", "single"))
def _finish(sol, n: int, single: bool):
    """Drops the padding rows (one small jitted program per n, instead of one eager dispatch per field)."""
    return jax.tree.map(lambda x: x[0] if single else x[:n], sol)


def sweep_compute_bound(params: FirmParams, options: SolverOptions = DEFAULT_OPTIONS) -> Solution:
    """Compute-bound optima of a batch of firms in one jitted, vmapped, chunked computation.

    ``params`` leaves carry a leading axis (see :func:`model.param_grid`). Rows with γλ ≥ 1 (Pareto, ρ = 0)
    come back as NaN instead of raising, so sweeps may cross 1/λ.
    """
    require_x64("sweep_compute_bound")
    packed = _prepare(params, options)
    return _finish(_compute_bound_jit(packed.rows, packed.treedef, options), packed.n, packed.single)


def solve_compute_bound(params: FirmParams, options: SolverOptions = DEFAULT_OPTIONS) -> Solution:
    """The profit-maximising (N*, D*) with data unlimited: N, D, C = 6ND, spend = C/E and revenue.

    Raises ConfigError for concrete parameters with γλ ≥ 1 (profit unbounded). Works on one firm or a batch,
    and under ``jax.vmap`` (where traced γλ ≥ 1 rows give NaN; prefer :func:`sweep_compute_bound` for
    batches, which skips the Adam fallback when no row needs it).
    """
    require_x64("solve_compute_bound")
    packed = _prepare(params, options)
    model.check_bounded(params)
    return _finish(_compute_bound_jit(packed.rows, packed.treedef, options), packed.n, packed.single)


# ------------------------------------------------------------------------------------------------------------
# Data-bound regime
# ------------------------------------------------------------------------------------------------------------


@struct.dataclass
class DataBoundSolution:
    """The optimum with D_max unique tokens: N, tokens trained D = D_max·epochs, N_cap = N_opt(D_max), and
    ``cap_ratio`` = N/N_cap (exactly 1 where the hard cap binds). ``at_cap`` marks hard-cap rows returned at
    the cap; ``bracketed`` is False where the hard-cap optimum lies below the bisection interval."""

    N: Float[ArrayLike, "*b"]
    D: Float[ArrayLike, "*b"]
    epochs: Float[ArrayLike, "*b"]
    C: Float[ArrayLike, "*b"]
    spend: Float[ArrayLike, "*b"]
    revenue: Float[ArrayLike, "*b"]
    profit: Float[ArrayLike, "*b"]
    ell: Float[ArrayLike, "*b"]
    n_cap: Float[ArrayLike, "*b"]
    cap_ratio: Float[ArrayLike, "*b"]
    at_cap: Bool[ArrayLike, "*b"]
    bracketed: Bool[ArrayLike, "*b"]
    grad_norm: Float[ArrayLike, "*b"]
    used_fallback: Bool[ArrayLike, "*b"]


def hard_cap_derivative(log_n: Float[Array, ""], params: FirmParams) -> Float[Array, ""]:
    """dJ/dlog N below the cap (where min(N, N_cap) = N), by autodiff of the uncapped law."""

    def j(z):
        log_d = jnp.log(params.D_max)
        return model._scaled_profit(sl.reducible_loss_log(params.law, z, log_d), z, log_d, params)

    return jax.grad(j)(log_n)


def hard_cap_log_n(params: FirmParams, options: SolverOptions = DEFAULT_OPTIONS):
    """(log N*, at_cap, bracketed) for the hard/tpp cap by bisection on dJ/dlog N (spec step 4).

    Returns the cap when the derivative there is still ≥ 0. Below the cap the derivative first rises and then
    falls (so "decreasing" in the spec holds only past its peak), but it changes sign at most once, from + to −
    (tests check this), so the bracketed root is the maximum.
    """
    cap = model.log_n_cap(params)
    lo0 = cap - options.bisection_width

    def halve(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        up = hard_cap_derivative(mid, params) > 0
        return jnp.where(up, mid, lo), jnp.where(up, hi, mid)

    lo, hi = jax.lax.fori_loop(0, options.bisection_iters, halve, (lo0, cap))
    at_cap = hard_cap_derivative(cap, params) >= 0
    bracketed = hard_cap_derivative(lo0, params) > 0
    return jnp.where(at_cap, cap, 0.5 * (lo + hi)), at_cap, bracketed


def soft_cap_start(params: FirmParams, options: SolverOptions = DEFAULT_OPTIONS) -> Float[Array, "2"]:
    """Best (log N, log(epochs − 1)) on a coarse grid around the cap (start of the soft-cap Newton)."""
    zn = model.log_n_cap(params) + jnp.linspace(-2.0, 6.0, options.soft_init_n)
    zr = jnp.linspace(-6.0, 6.0, options.soft_init_r)
    z = jnp.stack(jnp.meshgrid(zn, zr, indexing="ij"), axis=-1).reshape(-1, 2)
    j = jax.vmap(model.data_bound_scaled_profit, in_axes=(0, None))(z, params)
    return z[jnp.argmax(jnp.where(jnp.isnan(j), -jnp.inf, j))]


def _data_bound_solution(log_n, log_r, params: FirmParams, grad_norm, at_cap, bracketed, fallback):
    z = jnp.stack([log_n, log_r], axis=-1) if params.cap_kind == "soft" else log_n[..., None]
    ell, log_tokens = jax.vmap(model.data_bound_loss)(z, params)
    log_c = math.log(6.0) + log_n + log_tokens
    value = jax.vmap(model.data_bound_scaled_profit)(z, params)
    cap = model.log_n_cap(params)
    return DataBoundSolution(
        N=jnp.exp(log_n),
        D=jnp.exp(log_tokens),
        epochs=jnp.exp(log_tokens - jnp.log(params.D_max)),
        C=jnp.exp(log_c),
        spend=jnp.exp(log_c - jnp.log(params.E)),
        revenue=demand_lib.revenue(ell, params),
        profit=params.R0 * value,
        ell=ell,
        n_cap=jnp.exp(cap),
        cap_ratio=jnp.exp(log_n - cap),
        at_cap=at_cap,
        bracketed=bracketed,
        grad_norm=grad_norm,
        used_fallback=fallback,
    )


def _data_bound_batch(params: FirmParams, options: SolverOptions) -> DataBoundSolution:
    if params.cap_kind == "soft":
        z0 = jax.vmap(lambda p: soft_cap_start(p, options))(params)
        res, fallback = maximize_batch(model.data_bound_scaled_profit, z0, params, options)
        false = jnp.zeros_like(fallback)
        return _data_bound_solution(
            res.z[:, 0], res.z[:, 1], params, res.grad_norm, false, jnp.ones_like(fallback), fallback
        )
    log_n, at_cap, bracketed = jax.vmap(lambda p: hard_cap_log_n(p, options))(params)
    grad_norm = jnp.where(at_cap, 0.0, jnp.abs(jax.vmap(hard_cap_derivative)(log_n, params)))
    return _data_bound_solution(log_n, None, params, grad_norm, at_cap, bracketed, jnp.zeros_like(at_cap))


@functools.partial(jax.jit, static_argnames=("treedef", "options"))
def _data_bound_jit(rows: Float[Array, "b leaves"], treedef, options: SolverOptions) -> DataBoundSolution:
    batch = _unpack(rows, treedef)
    return sim.map_chunks(lambda p: _data_bound_batch(p, options), batch, options.chunk_size)


def solve_data_bound(
    params: FirmParams, D: float | Float[ArrayLike, "*b"] | None = None, options: SolverOptions = DEFAULT_OPTIONS
) -> DataBoundSolution:
    """The profit-maximising model with ``D`` (default ``params.D_max``) unique tokens (one firm or a batch).

    ``params.cap_kind`` picks the data-constrained quality law ('hard', 'tpp' or 'soft').
    """
    require_x64("solve_data_bound")
    if D is not None:
        params = params.replace(D_max=D)
    packed = _prepare(params, options)
    return _finish(_data_bound_jit(packed.rows, packed.treedef, options), packed.n, packed.single)


def sweep_data_bound(params: FirmParams, options: SolverOptions = DEFAULT_OPTIONS) -> DataBoundSolution:
    """Data-bound optima of a batch of firms (leading axis on the leaves) in one jitted computation."""
    require_x64("sweep_data_bound")
    packed = _prepare(params, options)
    return _finish(_data_bound_jit(packed.rows, packed.treedef, options), packed.n, packed.single)


# ------------------------------------------------------------------------------------------------------------
# Revenue off: the Chinchilla allocation, as a check of law + solver (claim E1)
# ------------------------------------------------------------------------------------------------------------


def _neg_log_loss_at_c(z: Float[Array, "1"], args) -> Float[Array, ""]:
    law, log_c6 = args
    return -jnp.log(sl.reducible_loss_log(law, z[0], log_c6 - z[0]))


@functools.partial(jax.jit, static_argnames=("options",))
def _frontier_jit(law: sl.LossLaw, log_c: Float[Array, " b"], options: SolverOptions):
    log_c6 = log_c - math.log(6.0)
    z0 = 0.5 * log_c6[:, None]  # N = D: deliberately not the closed form
    res, _ = maximize_batch(_neg_log_loss_at_c, z0, (law, log_c6), options)
    log_n = res.z[:, 0]
    return jnp.exp(log_n), jnp.exp(log_c6 - log_n), jnp.exp(-res.value), res.grad_norm


def solve_frontier(
    law: sl.LossLaw, C: Float[ArrayLike, "*b"], options: SolverOptions = DEFAULT_OPTIONS
) -> tuple[Float[Array, " b"], Float[Array, " b"], Float[Array, " b"], Float[Array, " b"]]:
    """(N_opt, D_opt, ℓ*, |∇|) minimising ℓ(N, D) at 6ND = C with the Newton solver, for a batch of C.

    ``law`` may be a single law or a batch (leaves with the same leading axis as ``C``).
    """
    require_x64("solve_frontier")
    sl.validate_law(law)
    log_c = jnp.log(jnp.atleast_1d(jnp.asarray(C, dtype=jnp.float64)))
    law = jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x, dtype=jnp.float64), log_c.shape), law)
    return _frontier_jit(law, log_c, options)
