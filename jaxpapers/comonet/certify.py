"""A float64 certifier for declared per-variable shapes, usable on any model (spec "certify.py").

For every constrained variable x_j (monotone sign s_j, curvature sign c_j) it measures, at random
points of a box and at adversarially searched points:

====================  ==========================================================  ====================
check                 violation at a point x                                      applies to
====================  ==========================================================  ====================
``grad``              relu(-s_j ∂f/∂x_j)  (autodiff, jvp along e_j)              monotone variables
``hess``              relu(-c_j ∂²f/∂x_j²)  (jvp of jvp along e_j)                curvature variables
``d2@h``              relu(-c_j [f(x+h e_j) + f(x-h e_j) - 2 f(x)])               curvature variables
``mono@h``            relu(-s_j [f(x+h e_j) - f(x)]), and the backward difference monotone variables
====================  ==========================================================  ====================

The Hessian of a ReLU network is zero almost everywhere, so ``hess`` passes trivially there; the
second differences at several h are what certify piecewise-linear nets. The adversarial search runs
projected Adam on x inside the box from random restarts, maximising the finite-difference violation
score -s_j Δ_h f / h (monotone) or -c_j Δ²_h f / h² (curvature) for each constrained variable and
keeping the best point of each chain; these scores have useful gradients for ReLU nets too.

Everything runs inside ``with jax.enable_x64(True):`` on float64 copies of the parameters (the model
must compute in the dtype of its params: COMONet's default ``dtype=None`` does). A scale-relative
tolerance ``rtol · (1 + max |f|)`` separates roundoff from violations; outputs are never clipped.

Letters: P points, D input variables, C checks, S searches, R restarts.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, Float

from jaxpapers.comonet.regimes import GroupSpec, parse_regimes
from jaxpapers.core import sim
from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError

ApplyFn = Callable[[Any, Array], Array]  # apply_fn(params, x [B, D]) -> [B] or [B, K]


@dataclasses.dataclass(frozen=True)
class CertReport:
    """Worst violation of every check for every variable, in float64.

    Attributes:
      regimes, names: the declared regimes and variable names.
      checks: check names, rows of ``worst``.
      worst: [C, D] worst violation over all checked points (NaN where a check does not apply).
      worst_adv: [C, D] the same over the adversarially searched points only.
      f_scale: max |f| over every evaluated point (the tolerance scale).
      n_points: points checked (random + adversarial).
      mono_violations: (point, variable, h) monotone differences below -tol.
      negative_mono_diffs: the same count with tol = 0 (roundoff included; informational).
      rtol: relative tolerance; a violation counts when it exceeds ``rtol · (1 + f_scale)``.
    """

    regimes: tuple[str, ...]
    names: tuple[str, ...]
    checks: tuple[str, ...]
    worst: np.ndarray
    worst_adv: np.ndarray
    f_scale: float
    n_points: int
    mono_violations: int
    negative_mono_diffs: int
    rtol: float

    @property
    def tol(self) -> float:
        return self.rtol * (1.0 + self.f_scale)

    @property
    def worst_violation(self) -> float:
        """Largest violation over every check and variable (0.0 when nothing applies)."""
        finite = self.worst[np.isfinite(self.worst)]
        return float(finite.max()) if finite.size else 0.0

    @property
    def relative_worst(self) -> float:
        return self.worst_violation / (1.0 + self.f_scale)

    @property
    def holds(self) -> bool:
        """Every declared shape holds to the scale-relative tolerance, with no monotone-difference violation."""
        return self.worst_violation <= self.tol and self.mono_violations == 0

    def by_variable(self) -> dict[str, float]:
        """Worst violation per constrained variable."""
        out = {}
        for j, (name, code) in enumerate(zip(self.names, self.regimes, strict=True)):
            if code != "free":
                col = self.worst[:, j]
                out[name] = float(np.nanmax(col)) if np.isfinite(col).any() else 0.0
        return out

    def table(self) -> str:
        """A plain-text table: one row per constrained variable, one column per check."""
        head = f"{'variable':>12} {'regime':>8} " + " ".join(f"{c:>10}" for c in self.checks)
        rows = [head]
        for j, (name, code) in enumerate(zip(self.names, self.regimes, strict=True)):
            if code == "free":
                continue
            cells = " ".join(f"{'-':>10}" if np.isnan(v) else f"{v:10.2e}" for v in self.worst[:, j])
            rows.append(f"{name:>12} {code:>8} {cells}")
        rows.append(f"tolerance {self.tol:.3g} (rtol {self.rtol:g}, max|f| {self.f_scale:.3g}), {self.n_points} points")
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "worst_violation": self.worst_violation,
            "relative_worst": self.relative_worst,
            "by_variable": self.by_variable(),
            "f_scale": self.f_scale,
            "n_points": self.n_points,
            "mono_violations": self.mono_violations,
            "negative_mono_diffs": self.negative_mono_diffs,
            "holds": self.holds,
        }


def worst_of(reports: Sequence[CertReport]) -> CertReport:
    """One report whose ``worst`` is the elementwise worst over ``reports`` (same model and checks)."""
    worst = np.fmax.reduce(np.stack([r.worst for r in reports]), axis=0)  # NaN only where a check never applies
    return dataclasses.replace(reports[0], worst=worst)


def check_names(hs: Sequence[float]) -> tuple[str, ...]:
    """Names of the checks, in the order of the rows of ``CertReport.worst``."""
    return ("grad", "hess", *(f"d2@{h:g}" for h in hs), *(f"mono@{h:g}" for h in hs))


# --------------------------------------------------------------------------------------------------
# Pointwise checks (pure, vmappable over parameters)
# --------------------------------------------------------------------------------------------------


def _scalar_fn(apply_fn: ApplyFn, params: Any, output: int) -> Callable[[Array], Array]:
    """x [P, D] -> f [P] for one output column."""

    def f(x: Array) -> Array:
        y = apply_fn(params, x)
        return y if y.ndim == 1 else y[:, output]

    return f


def checked_variables(spec: GroupSpec) -> tuple[int, ...]:
    """Indices J of the variables with a monotone or curvature constraint (the last axis of the checks)."""
    return tuple(j for j in range(spec.num_features) if spec.mono_sign[j] or spec.curv_sign[j])


def pointwise_violations(
    f: Callable[[Array], Array],
    x: Float[Array, "P D"],
    spec: GroupSpec,
    hs: Sequence[float],
    *,
    hessian: bool = True,
    chunk_size: int | None = 512,
) -> tuple[Float[Array, "P C J"], Float[Array, " P"]]:
    """Violations of every check at every point for the constrained variables J, and max |f| per point.

    ``f`` maps ``[P, D] -> [P]``; J is :func:`checked_variables` (the order of the last axis). Checks
    that do not apply to a variable (e.g. ``grad`` for a convex-only one) are 0. Works in the dtype
    of ``x``; call inside ``jax.enable_x64(True)`` with float64 inputs to certify.
    """
    d = spec.num_features
    cons = checked_variables(spec)
    n_c = 2 + 2 * len(hs)
    if not cons:
        fx = sim.map_chunks(jax.vmap(lambda z: f(z[None])[0]), x, chunk_size)
        return jnp.zeros((x.shape[0], n_c, 0), x.dtype), jnp.abs(fx)
    s_j = jnp.asarray([spec.mono_sign[j] for j in cons], x.dtype)
    c_j = jnp.asarray([spec.curv_sign[j] for j in cons], x.dtype)
    basis = jnp.asarray(np.eye(d)[list(cons)], x.dtype)  # [J, D]
    offsets = jnp.asarray(np.asarray(hs)[:, None, None] * np.eye(d)[list(cons)][None], x.dtype)  # [H, J, D]
    f1 = lambda z: f(z[None])[0]

    def derivatives(z: Array, e: Array) -> tuple[Array, Array, Array]:
        # forward over forward along e: (f, ∂_e f) and its own derivative along e, (∂_e f, ∂²_e f)
        if not hessian:
            f0, d1 = jax.jvp(f1, (z,), (e,))
            return f0, d1, jnp.zeros_like(d1)
        (f0, d1), (_, d2) = jax.jvp(lambda w: jax.jvp(f1, (w,), (e,)), (z,), (e,))
        return f0, d1, d2

    def one(z: Array) -> tuple[Array, Array]:
        f0s, d1, d2 = jax.vmap(lambda e: derivatives(z, e))(basis)
        f0 = f0s[0]
        pts = jnp.concatenate([z + offsets, z - offsets], axis=0).reshape(-1, d)
        vals = f(pts).reshape(2, len(hs), len(cons))
        fp, fm = vals[0], vals[1]
        grad_v = jax.nn.relu(-s_j * d1)
        hess_v = jax.nn.relu(-c_j * d2)
        d2_v = jax.nn.relu(-c_j * (fp + fm - 2.0 * f0))
        mono_v = jnp.maximum(jax.nn.relu(-s_j * (fp - f0)), jax.nn.relu(-s_j * (f0 - fm)))
        viol = jnp.concatenate([grad_v[None], hess_v[None], d2_v, mono_v], axis=0)
        return viol, jnp.maximum(jnp.abs(f0), jnp.max(jnp.abs(vals)))

    return sim.map_chunks(jax.vmap(one), x, chunk_size)  # pads the last chunk: one compiled loop body


def _adversarial_points(
    f: Callable[[Array], Array],
    key: jax.Array,
    spec: GroupSpec,
    lo: Array,
    hi: Array,
    *,
    h: float,
    n_adv: int,
    adv_steps: int,
    adv_lr: float,
) -> Float[Array, "SR D"]:
    """Best points of projected-Adam chains maximising each constrained variable's violation score."""
    d = spec.num_features
    searches = [(j, 0, spec.mono_sign[j]) for j in range(d) if spec.mono_sign[j]]
    searches += [(j, 1, spec.curv_sign[j]) for j in range(d) if spec.curv_sign[j]]
    if not searches or n_adv == 0:
        return jnp.zeros((0, d), lo.dtype)
    dirs = jnp.asarray(np.eye(d)[[s[0] for s in searches]], lo.dtype)  # [S, D]
    kinds = jnp.asarray([s[1] for s in searches], lo.dtype)
    signs = jnp.asarray([s[2] for s in searches], lo.dtype)
    n_s = len(searches)

    def score(u: Array, e: Array, kind: Array, sign: Array) -> Array:
        x = lo + (hi - lo) * u
        vals = f(jnp.stack([x, x + h * e, x - h * e]))
        mono_score = -sign * (vals[1] - vals[0]) / h
        curv_score = -sign * (vals[1] + vals[2] - 2.0 * vals[0]) / h**2
        return jnp.where(kind > 0, curv_score, mono_score)

    # one chain per (search, restart): u in [0, 1]^D, mapped to the box
    e = jnp.repeat(dirs, n_adv, axis=0)
    kind = jnp.repeat(kinds, n_adv)
    sign = jnp.repeat(signs, n_adv)
    u0 = jax.random.uniform(key, (n_s * n_adv, d), lo.dtype)
    tx = optax.adam(adv_lr)
    loss_grad = jax.vmap(jax.value_and_grad(lambda u, e_, k_, s_: -score(u, e_, k_, s_)))

    def step(carry, _):
        u, opt, best_u, best = carry
        neg, g = loss_grad(u, e, kind, sign)
        improved = -neg > best
        best_u = jnp.where(improved[:, None], u, best_u)
        best = jnp.where(improved, -neg, best)
        upd, opt = tx.update(g, opt)
        u = jnp.clip(optax.apply_updates(u, upd), 0.0, 1.0)
        return (u, opt, best_u, best), None

    init = (u0, tx.init(u0), u0, jnp.full((u0.shape[0],), -jnp.inf, lo.dtype))
    (u, _, best_u, _), _ = jax.lax.scan(step, init, None, length=adv_steps)
    del u  # the last update is not scored: one model evaluation less to compile
    return lo + (hi - lo) * best_u


def _certify_arrays(
    apply_fn: ApplyFn,
    params: Any,
    key: jax.Array,
    *,
    spec: GroupSpec,
    lo: Array,
    hi: Array,
    n_random: int,
    n_adv: int,
    adv_steps: int,
    hs: tuple[float, ...],
    adv_lr: float,
    hessian: bool,
    rtol: float,
    output: int,
    chunk_size: int | None,
) -> dict[str, Array]:
    """The certifier as one pure function of (params, key): vmappable over parameter sets."""
    f = _scalar_fn(apply_fn, params, output)
    k_rand, k_adv = jax.random.split(key)
    x_rand = lo + (hi - lo) * jax.random.uniform(k_rand, (n_random, spec.num_features), lo.dtype)
    h_adv = hs[len(hs) // 2]
    x_adv = _adversarial_points(f, k_adv, spec, lo, hi, h=h_adv, n_adv=n_adv, adv_steps=adv_steps, adv_lr=adv_lr)
    x = jnp.concatenate([x_rand, x_adv], axis=0)
    viol, fmax = pointwise_violations(f, x, spec, hs, hessian=hessian, chunk_size=chunk_size)
    f_scale = jnp.max(fmax)
    tol = rtol * (1.0 + f_scale)
    n_h = len(hs)
    mono_block = viol[:, 2 + n_h :, :]
    return {
        "worst": jnp.max(viol, axis=0),
        "worst_adv": jnp.max(viol[n_random:], axis=0) if x_adv.shape[0] else jnp.zeros(viol.shape[1:], viol.dtype),
        "f_scale": f_scale,
        "mono_violations": jnp.sum(mono_block > tol),
        "negative_mono_diffs": jnp.sum(mono_block > 0),
    }


def _report(
    arrays: Mapping[str, Any], spec: GroupSpec, hs: tuple[float, ...], n_points: int, hessian: bool, rtol: float
) -> CertReport:
    names = check_names(hs)
    cons = list(checked_variables(spec))

    def full(a: np.ndarray) -> np.ndarray:  # [C, J] -> [C, D]
        out = np.zeros((len(names), spec.num_features))
        out[:, cons] = np.asarray(a, np.float64)
        return out

    mask = np.zeros((len(names), spec.num_features), bool)
    mono = np.asarray(spec.mono_sign) != 0
    curv = np.asarray(spec.curv_sign) != 0
    mask[0] = mono
    mask[1] = curv & hessian
    mask[2 : 2 + len(hs)] = curv
    mask[2 + len(hs) :] = mono
    worst = np.where(mask, full(arrays["worst"]), np.nan)
    worst_adv = np.where(mask, full(arrays["worst_adv"]), np.nan)
    return CertReport(
        regimes=spec.regimes,
        names=tuple(spec.name(j) for j in range(spec.num_features)),
        checks=names,
        worst=worst,
        worst_adv=worst_adv,
        f_scale=float(arrays["f_scale"]),
        n_points=n_points,
        mono_violations=int(arrays["mono_violations"]),
        negative_mono_diffs=int(arrays["negative_mono_diffs"]),
        rtol=rtol,
    )


def _to_float64(tree: Any) -> Any:
    return jax.tree.map(
        lambda a: jnp.asarray(a, jnp.float64) if jnp.issubdtype(jnp.asarray(a).dtype, jnp.floating) else a, tree
    )


def _box(box: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = (np.broadcast_to(np.asarray(b, np.float64), (d,)) for b in box)
    if not np.all(lo < hi):
        raise ConfigError(f"box={box!r} must be (low, high) with low < high in every coordinate")
    return lo, hi


def certify_batch(
    apply_fn: ApplyFn,
    stacked_params: Any,
    regimes: GroupSpec | Sequence[str],
    key: jax.Array,
    box: tuple[Any, Any] = (-1.0, 1.0),
    n_random: int = 4096,
    n_adv: int = 64,
    adv_steps: int = 100,
    h: Sequence[float] = (1e-2, 0.1, 0.5),
    *,
    adv_lr: float = 0.05,
    hessian: bool = True,
    rtol: float = 1e-9,
    output: int = 0,
    chunk_size: int | None = 512,
    params_chunk: int | None = None,
) -> list[CertReport]:
    """Certifies many parameter sets (stacked on a leading axis) in one vmapped, jitted float64 run.

    Each parameter set gets its own random and adversarial points: ``key`` is split into one key per
    set, or is already a batch of ``n_sets`` keys (``certify(params_i, keys[i])`` then equals entry i).
    ``params_chunk`` bounds memory by certifying that many parameter sets at a time.
    """
    spec = regimes if isinstance(regimes, GroupSpec) else parse_regimes(tuple(regimes))
    hs = tuple(float(v) for v in h)
    for v in hs:
        check_range("h", v, 0.0, lo_open=True)
    check_range("n_random", n_random, 1)
    check_range("n_adv", n_adv, 0)
    check_range("adv_steps", adv_steps, 1)
    check_range("rtol", rtol, 0.0)
    lo_np, hi_np = _box(box, spec.num_features)
    n_sets = jax.tree.leaves(stacked_params)[0].shape[0]
    with jax.enable_x64(True):
        params64 = _to_float64(stacked_params)
        lo, hi = jnp.asarray(lo_np), jnp.asarray(hi_np)
        probe = apply_fn(jax.tree.map(lambda a: a[0], params64), lo[None])
        if probe.dtype != jnp.float64:
            raise ConfigError(
                f"apply_fn computes in {probe.dtype} on float64 params; build the model with dtype=None "
                "so that the certifier can run it in float64"
            )
        run = functools.partial(
            _certify_arrays,
            apply_fn,
            spec=spec,
            lo=lo,
            hi=hi,
            n_random=n_random,
            n_adv=n_adv,
            adv_steps=adv_steps,
            hs=hs,
            adv_lr=adv_lr,
            hessian=hessian,
            rtol=rtol,
            output=output,
            chunk_size=chunk_size,
        )
        keys = key if key.shape == (n_sets,) else jax.random.split(key, n_sets)
        batched = lambda p, k: sim.vmap_chunked(run, p, k, chunk_size=params_chunk)
        arrays = jax.jit(batched, compiler_options=sim.fast_compile_options(level=1))(params64, keys)
        arrays = jax.device_get(arrays)
    n_points = n_random + n_adv * (sum(1 for s in spec.mono_sign if s) + sum(1 for c in spec.curv_sign if c))
    return [_report({k: v[i] for k, v in arrays.items()}, spec, hs, n_points, hessian, rtol) for i in range(n_sets)]


def certify(
    apply_fn: ApplyFn,
    params: Any,
    regimes: GroupSpec | Sequence[str],
    key: jax.Array,
    box: tuple[Any, Any] = (-1.0, 1.0),
    n_random: int = 4096,
    n_adv: int = 64,
    adv_steps: int = 100,
    h: Sequence[float] = (1e-2, 0.1, 0.5),
    **kwargs: Any,
) -> CertReport:
    """Checks every declared shape of ``apply_fn(params, ·)`` on a box, in float64.

    Args:
      apply_fn: ``apply_fn(params, x [B, D]) -> [B] or [B, K]`` (``output=`` picks the column).
      params: the model's parameters (cast to float64 here).
      regimes: one code per input (or a GroupSpec).
      key: randomness for the random points and the adversarial restarts.
      box: (low, high), scalars or per-variable arrays; points are drawn and searched inside it.
      n_random: uniform random points.
      n_adv, adv_steps: restarts per constrained (variable, check kind) and projected-Adam steps.
      h: finite-difference steps of the second-difference and monotone-difference checks.
      **kwargs: ``adv_lr`` (Adam step in box units, 0.05), ``hessian`` (True), ``rtol`` (1e-9),
        ``output`` (0), ``chunk_size`` (points per vmapped chunk, 512).

    Returns:
      CertReport with the worst violation per check and variable; ``report.holds`` is the verdict.
    """
    stacked = jax.tree.map(lambda a: jnp.asarray(a)[None], params)
    return certify_batch(apply_fn, stacked, regimes, key[None], box, n_random, n_adv, adv_steps, h, **kwargs)[0]


def violation_fraction(
    apply_fn: ApplyFn,
    params: Any,
    regimes: GroupSpec | Sequence[str],
    x: np.ndarray,
    h: Sequence[float] = (0.1,),
    *,
    rtol: float = 1e-9,
    output: int = 0,
) -> float:
    """Fraction of the points ``x`` at which any declared shape is violated (float64, scale-relative tol).

    A point violates when any check (gradient sign, Hessian sign, second or monotone difference at
    ``h``) exceeds ``rtol · (1 + max |f|)``, max taken over all evaluations at these points.
    """
    spec = regimes if isinstance(regimes, GroupSpec) else parse_regimes(tuple(regimes))
    with jax.enable_x64(True):
        f = _scalar_fn(apply_fn, _to_float64(params), output)
        run = jax.jit(
            lambda z: pointwise_violations(f, z, spec, tuple(h)), compiler_options=sim.fast_compile_options(level=1)
        )
        viol, fmax = run(jnp.asarray(x, jnp.float64))
        tol = rtol * (1.0 + jnp.max(fmax))
        return float(jnp.mean(jnp.any(viol > tol, axis=(1, 2))))
