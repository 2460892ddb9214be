"""The planted latent model of paired image/text features, its population covariances and a sampler.

Spec "Planted latent model" (our choice: the spiked model of Kamai et al., arXiv 2606.11190,
generalised to ``d_x != d_y``). A ``k``-dim semantic latent ``s`` is shared by both modalities; each
modality also carries nuisance, of which ``m = min(m_x, m_y)`` pairs may be correlated *across*
modalities (spurious shared content)::

    s ~ N(0, diag(kappa^2)),  e_x ~ N(0, diag(gxs)),  e_y ~ N(0, diag(gys))
    (n_x[j], n_y[j]) ~ N(0, [[gxn_j, eta_j], [eta_j, gyn_j]]),  eta_j = nu_j sqrt(gxn_j gyn_j),  j < m
    x = Qx concat(s + e_x, n_x),   y = Qy concat(s + e_y, n_y)

Letters: N samples, D image dim d_x, E text dim d_y, K shared dim k.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import chex
import flax
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_range
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ConfigError
from jaxpapers.vlm_objectives.config import PlantedConfig


@chex.dataclass(frozen=True, mappable_dataclass=False)
class PlantedParams:
    """Parameters of the planted model (a pytree: vmap over a leading batch axis of every field).

    Attributes:
      kappa: (k,) signal standard deviations, > 0.
      gxs, gys: (k,) variances of the modality noise on the shared coordinates, >= 0.
      gxn: (m_x,) image nuisance variances, > 0.  gyn: (m_y,) text nuisance variances, > 0.
      nu: (m,) cross-modal correlations of the first m = min(m_x, m_y) nuisance pairs, in [0, 1).
    """

    kappa: Float[Array, " k"]
    gxs: Float[Array, " k"]
    gys: Float[Array, " k"]
    gxn: Float[Array, " mx"]
    gyn: Float[Array, " my"]
    nu: Float[Array, " m"]

    @property
    def k(self) -> int:
        return self.kappa.shape[-1]

    @property
    def d_x(self) -> int:
        return self.k + self.gxn.shape[-1]

    @property
    def d_y(self) -> int:
        return self.k + self.gyn.shape[-1]

    @property
    def m(self) -> int:
        return self.nu.shape[-1]

    @property
    def eta(self) -> Float[Array, " m"]:
        """Nuisance cross-covariances ``eta_j = nu_j sqrt(gxn_j gyn_j)``."""
        m = self.m
        return self.nu * jnp.sqrt(self.gxn[..., :m] * self.gyn[..., :m])


@flax.struct.dataclass
class Cov:
    """Population (or sample) second moments of zero-mean pairs ``(x, y)``.

    ``Ux``/``Uy`` are the ground-truth semantic subspaces as column bases ``(d, k)`` and ``Qx``/``Qy``
    the rotations of the planted model; all four are None for covariances without a planted truth
    (random joint covariances, real data).
    """

    Sxx: Float[Array, "*batch D D"]  # a pytree: vmap and stacking add leading batch dims
    Syy: Float[Array, "*batch E E"]
    Sxy: Float[Array, "*batch D E"]
    Ux: Float[Array, "*batch D K"] | None = None
    Uy: Float[Array, "*batch E K"] | None = None
    Qx: Float[Array, "*batch D D"] | None = None
    Qy: Float[Array, "*batch E E"] | None = None

    @property
    def Syx(self) -> Float[Array, "E D"]:
        return jnp.swapaxes(self.Sxy, -1, -2)

    @property
    def d_x(self) -> int:
        return self.Sxx.shape[-1]

    @property
    def d_y(self) -> int:
        return self.Syy.shape[-1]


def _vec(name: str, value, size: int, *, pad_zero: bool = False) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if arr.ndim != 1:
        raise ConfigError(f"{name} must be a scalar or a 1-D sequence; got shape {arr.shape}")
    if arr.size == 1 and size != 1 and not pad_zero:
        return np.full(size, arr[0])
    if arr.size == size:
        return arr
    if pad_zero and arr.size < size:
        return np.concatenate([arr, np.zeros(size - arr.size)])
    allowed = f"a scalar or {size} values" + (" (or fewer, padded with zeros)" if pad_zero else "")
    raise ConfigError(f"{name} has {arr.size} values; expected {allowed}")


def planted_params(
    k: int,
    d_x: int,
    d_y: int,
    *,
    kappa: float | Sequence[float],
    gxs: float | Sequence[float],
    gys: float | Sequence[float],
    gxn: float | Sequence[float],
    gyn: float | Sequence[float],
    nu: float | Sequence[float] = 0.0,
    dtype=None,
) -> PlantedParams:
    """Validated :class:`PlantedParams`; scalars broadcast.

    A scalar ``nu`` applies to *every* correlated pair; a sequence shorter than ``m`` is padded with
    zeros (``[0.9, 0.9, 0.9]``: three correlated pairs, the others independent).
    """
    check_range("k", k, 1)
    check_range("d_x", d_x, k + 1)
    check_range("d_y", d_y, k + 1)
    m_x, m_y = d_x - k, d_y - k
    m = min(m_x, m_y)
    fields = dict(
        kappa=_vec("kappa", kappa, k),
        gxs=_vec("gxs", gxs, k),
        gys=_vec("gys", gys, k),
        gxn=_vec("gxn", gxn, m_x),
        gyn=_vec("gyn", gyn, m_y),
        nu=np.full(m, float(nu)) if np.ndim(nu) == 0 else _vec("nu", nu, m, pad_zero=True),
    )
    p = PlantedParams(**{n: jnp.asarray(v, dtype=dtype) for n, v in fields.items()})
    check_planted(p)
    return p


def planted_from_config(c: PlantedConfig | Mapping[str, Any], dtype: Any = None) -> PlantedParams:
    """:class:`PlantedParams` from a config block ``{k, d_x, d_y, kappa, gxs, gys, gxn, gyn, nu}``
    (a ConfigDict or mapping is converted with ``core.config.to_dataclass``)."""
    c = c if isinstance(c, PlantedConfig) else to_dataclass(PlantedConfig, c)
    values = {f.name: getattr(c, f.name) for f in dataclasses.fields(c)}
    k, d_x, d_y = values.pop("k"), values.pop("d_x"), values.pop("d_y")
    return planted_params(
        k, d_x, d_y, **{n: list(v) if isinstance(v, tuple) else v for n, v in values.items()}, dtype=dtype
    )


def check_planted(p: PlantedParams) -> None:
    """Raises ConfigError unless shapes agree and kappa > 0, gxs, gys >= 0, gxn, gyn > 0, 0 <= nu < 1."""
    k = p.kappa.shape[-1]
    for name in ("gxs", "gys"):
        if getattr(p, name).shape[-1] != k:
            raise ConfigError(f"{name} has shape {getattr(p, name).shape}; expected (..., {k}) like kappa")
    m = min(p.gxn.shape[-1], p.gyn.shape[-1])
    if p.nu.shape[-1] != m:
        raise ConfigError(f"nu has shape {p.nu.shape}; expected (..., {m}) = min(m_x, m_y)")
    if isinstance(p.kappa, jax.core.Tracer):
        return  # values are only checked on concrete arrays
    limits = {"kappa": (0.0, None, True), "gxs": (0.0, None, False), "gys": (0.0, None, False)}
    limits |= {"gxn": (0.0, None, True), "gyn": (0.0, None, True), "nu": (0.0, 1.0, False)}
    for name, (lo, hi, lo_open) in limits.items():
        arr = np.asarray(getattr(p, name))
        for value in (arr.min(), arr.max()) if arr.size else ():
            check_range(name, float(value), lo, hi, lo_open=lo_open, hi_open=hi is not None)


def haar_orthogonal(key: jax.Array, d: int, dtype=None) -> Float[Array, "d d"]:
    """A Haar-distributed random orthogonal matrix (QR of a Gaussian matrix with the sign fix)."""
    g = jax.random.normal(key, (d, d), dtype=dtype)
    q, r = jnp.linalg.qr(g)
    return q * jnp.sign(jnp.diagonal(r))[None, :]


def canonical_blocks(p: PlantedParams) -> tuple[Float[Array, " D"], Float[Array, " E"], Float[Array, "D E"]]:
    """Diagonal variances of x and y and the cross-covariance ``D`` in canonical (unrotated) coordinates."""
    k, m = p.k, p.m
    dxx = jnp.concatenate([p.kappa**2 + p.gxs, p.gxn])
    dyy = jnp.concatenate([p.kappa**2 + p.gys, p.gyn])
    dxy = jnp.zeros((p.d_x, p.d_y), dxx.dtype)
    dxy = dxy.at[jnp.arange(k), jnp.arange(k)].set(p.kappa**2)
    dxy = dxy.at[k + jnp.arange(m), k + jnp.arange(m)].set(p.eta)
    return dxx, dyy, dxy


def planted_covariances(p: PlantedParams, key: jax.Array) -> Cov:
    """Population covariances ``Sxx = Qx diag(kappa^2+gxs, gxn) Qx^T``, ``Syy``, ``Sxy = Qx D Qy^T``.

    ``key`` draws the Haar rotations ``Qx, Qy``; ``Ux = Qx[:, :k]``, ``Uy = Qy[:, :k]``.
    """
    kx, ky = jax.random.split(key)
    dtype = p.kappa.dtype
    return rotated_covariances(p, haar_orthogonal(kx, p.d_x, dtype), haar_orthogonal(ky, p.d_y, dtype))


def rotated_covariances(p: PlantedParams, qx: Float[Array, "D D"], qy: Float[Array, "E E"]) -> Cov:
    """The planted covariances for given rotations (sweeps over parameters reuse one pair of rotations)."""
    dxx, dyy, dxy = canonical_blocks(p)
    return Cov(
        Sxx=(qx * dxx) @ qx.T,
        Syy=(qy * dyy) @ qy.T,
        Sxy=qx @ dxy @ qy.T,
        Ux=qx[:, : p.k],
        Uy=qy[:, : p.k],
        Qx=qx,
        Qy=qy,
    )


def base_dim(p: PlantedParams) -> int:
    """Number of independent standard normals behind one pair: ``s, e_x, e_y`` (k each) and the
    image and text nuisance innovations (m_x, m_y)."""
    return 3 * p.k + (p.d_x - p.k) + (p.d_y - p.k)


def pair_map(p: PlantedParams, cov: Cov) -> tuple[Float[Array, "D Z"], Float[Array, "E Z"], Float[Array, "K Z"]]:
    """Linear maps ``(Lx, Ly, Ls)`` from standard normals ``z`` to ``(x, y, s)``: ``x = Lx z`` etc.

    Order of ``z``: ``s/kappa, e_x/sqrt(gxs), e_y/sqrt(gys)`` (k each), ``z_x`` (m_x), ``z_y`` (m_y). The
    first m text nuisances are ``sqrt(gyn_j) (nu_j z_x[j] + sqrt(1-nu_j^2) z_y[j])``: correlation nu_j
    with the image nuisance ``sqrt(gxn_j) z_x[j]``.
    """
    if cov.Qx is None or cov.Qy is None:
        raise ConfigError("the planted sampler needs a Cov from planted_covariances (its Qx/Qy rotations are None)")
    k, m = p.k, p.m
    m_x, m_y = p.d_x - k, p.d_y - k
    dtype = p.kappa.dtype
    q = base_dim(p)
    eye_k = jnp.eye(k, dtype=dtype)
    gx = jnp.zeros((p.d_x, q), dtype)
    gx = gx.at[:k, :k].set(eye_k * p.kappa).at[:k, k : 2 * k].set(eye_k * jnp.sqrt(p.gxs))
    gx = gx.at[k:, 3 * k : 3 * k + m_x].set(jnp.diag(jnp.sqrt(p.gxn)))
    nu = jnp.concatenate([p.nu, jnp.zeros(m_y - m, dtype)])
    gy = jnp.zeros((p.d_y, q), dtype)
    gy = gy.at[:k, :k].set(eye_k * p.kappa).at[:k, 2 * k : 3 * k].set(eye_k * jnp.sqrt(p.gys))
    sd_y = jnp.sqrt(p.gyn)
    gy = gy.at[k + jnp.arange(m), 3 * k + jnp.arange(m)].set(sd_y[:m] * p.nu)
    gy = gy.at[k:, 3 * k + m_x :].set(jnp.diag(sd_y * jnp.sqrt(1.0 - nu**2)))
    gs = jnp.zeros((k, q), dtype).at[:, :k].set(eye_k * p.kappa)
    return cov.Qx @ gx, cov.Qy @ gy, gs


def sample_pairs(
    p: PlantedParams, cov: Cov, key: jax.Array, n: int
) -> tuple[Float[Array, "N D"], Float[Array, "N E"], Float[Array, "N K"]]:
    """Draws ``n`` pairs ``(x, y)`` and their latents ``s`` from the planted model.

    The rotations come from ``cov`` (from :func:`planted_covariances`), so fresh galleries and
    training sets drawn with other keys share one model. ``x = Lx z`` with ``z ~ N(0, I)`` drawn from
    ``key`` (:func:`pair_map`).
    """
    lx, ly, ls = pair_map(p, cov)
    z = jax.random.normal(key, (n, base_dim(p)), p.kappa.dtype)
    return z @ lx.T, z @ ly.T, z @ ls.T


def base_moments(p: PlantedParams, key: jax.Array, n: int) -> Float[Array, "Z Z"]:
    """Centered second moments of the ``n`` standard normals :func:`sample_pairs` draws from ``key``."""
    z = jax.random.normal(key, (n, base_dim(p)), p.kappa.dtype)
    z = z - jnp.mean(z, axis=0)
    return z.T @ z / n


def cov_from_moments(p: PlantedParams, cov: Cov, czz: Float[Array, "Z Z"]) -> Cov:
    """The centered sample covariance of the pairs whose normals have centered moments ``czz``.

    Because the sampler is linear in its normals, ``empirical_cov(*sample_pairs(p, cov, key, n)[:2])``
    equals ``L Ĉz L^T`` with ``Ĉz = base_moments(p, key, n)``: sweeps over the model parameters with
    common random numbers cost one ``base_dim``² matrix, not n pairs, per point. Carries Ux/Uy.
    """
    lx, ly, _ = pair_map(p, cov)
    return Cov(Sxx=lx @ czz @ lx.T, Syy=ly @ czz @ ly.T, Sxy=lx @ czz @ ly.T, Ux=cov.Ux, Uy=cov.Uy)


def empirical_cov(x: Float[Array, "N D"], y: Float[Array, "N E"], *, center: bool = True) -> Cov:
    """Sample covariances of pairs, centered on the sample mean (see the spec's Pitfalls: with non-zero
    means the linearised InfoNCE gains a term linear in W and the CCA equivalence breaks)."""
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ConfigError(f"x and y must be (N, d_x) and (N, d_y) with one N; got {x.shape} and {y.shape}")
    if center:
        x = x - x.mean(0)
        y = y - y.mean(0)
    n = x.shape[0]
    return Cov(Sxx=x.T @ x / n, Syy=y.T @ y / n, Sxy=x.T @ y / n)


def random_joint_cov(key: jax.Array, d_x: int, d_y: int, *, dof: int | None = None, dtype=None) -> Cov:
    """A random non-diagonal joint covariance of ``(x, y)``: a Wishart draw ``G G^T / dof``.

    ``dof`` defaults to ``2 (d_x + d_y)``, which keeps the canonical correlations spread over (0, 1).
    """
    d = d_x + d_y
    dof = dof or 2 * d
    check_range("dof", dof, d)
    g = jax.random.normal(key, (d, dof), dtype)
    s = g @ g.T / dof
    return Cov(Sxx=s[:d_x, :d_x], Syy=s[d_x:, d_x:], Sxy=s[:d_x, d_x:])


def random_planted_params(
    key: jax.Array,
    k: int,
    m_x: int,
    m_y: int,
    *,
    kappa2_range: tuple[float, float] = (0.5, 10.0),
    gs_range: tuple[float, float] = (0.05, 4.0),
    gn_range: tuple[float, float] = (0.05, 10.0),
    dtype=None,
) -> PlantedParams:
    """One random draw of planted parameters (vmap over keys for a batch).

    kappa^2, gxs, gys, gxn, gyn are log-uniform on the given ranges; nu is uniform on [0, 1).
    """
    keys = jax.random.split(key, 6)

    def log_uniform(kk, shape, lo_hi):
        lo, hi = np.log(lo_hi[0]), np.log(lo_hi[1])
        return jnp.exp(jax.random.uniform(kk, shape, dtype, lo, hi))

    return PlantedParams(
        kappa=jnp.sqrt(log_uniform(keys[0], (k,), kappa2_range)),
        gxs=log_uniform(keys[1], (k,), gs_range),
        gys=log_uniform(keys[2], (k,), gs_range),
        gxn=log_uniform(keys[3], (m_x,), gn_range),
        gyn=log_uniform(keys[4], (m_y,), gn_range),
        nu=jax.random.uniform(keys[5], (min(m_x, m_y),), dtype, 0.0, 1.0),
    )


def random_mixer(key: jax.Array, d_in: int, hidden: int, d_out: int, slope: float = 0.2) -> Callable[[Array], Array]:
    """A fixed random 2-layer leaky-ReLU network ``x -> leaky_relu(x A1) A2`` (our construction, V6)."""
    k1, k2 = jax.random.split(key)
    a1 = jax.random.normal(k1, (d_in, hidden)) / math.sqrt(d_in)
    a2 = jax.random.normal(k2, (hidden, d_out)) / math.sqrt(hidden)
    return lambda x: jax.nn.leaky_relu(x @ a1, slope) @ a2


@functools.cache
def mixed_sampler(n: int, hidden: int, d_out: int) -> Callable[..., tuple[Array, Array, Array]]:
    """A jitted ``sample(p, cov, key) -> (x, y, s)``: ``n`` planted pairs, each modality RMS-normalised and
    passed through its own :func:`random_mixer` (the mixers drawn from ``key``)."""

    def sample(p: PlantedParams, cov: Cov, key: jax.Array):
        k_data, k_mx, k_my = jax.random.split(key, 3)
        x, y, s = sample_pairs(p, cov, k_data, n)
        x = random_mixer(k_mx, p.d_x, hidden, d_out)(x / jnp.sqrt(jnp.mean(x**2)))
        y = random_mixer(k_my, p.d_y, hidden, d_out)(y / jnp.sqrt(jnp.mean(y**2)))
        return x, y, s

    return jax.jit(sample)
