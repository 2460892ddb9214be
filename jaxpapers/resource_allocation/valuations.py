"""Concave valuation families for one divisible unit of a good (spec "Environment").

A :class:`Valuation` is a pytree of arrays ``w, r, s, kind`` of one shape ``[..., n]`` (agents last),
so a batch of instances with different numbers of agents shares one array shape: an agent with
``w = 0`` is padding (its marginal value is 0 everywhere, so it is never active).

===========  ================================================  =====================
kind         v(x)                                              v'(x)
===========  ================================================  =====================
``LINEAR``   w·x                                               w
``POWER``    w·((x+s)^{1-r} - s^{1-r})/(1-r),  r ∈ (0, 1)       w·(x+s)^{-r}
``LOG``      w·log(1 + x/s)                                    w/(x+s)
===========  ================================================  =====================

All three are concave, increasing, differentiable with v(0) = 0. Unused fields are kept at safe
dummies (``r = 0``, ``s = 1``) so every branch of every formula stays finite: gradients through
``jnp.where`` would otherwise turn a NaN in an unselected branch into a NaN gradient.

Axis letters used in shapes: B instances, N agents.
"""

from __future__ import annotations

import dataclasses

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.resource_allocation.config import InstanceConfig

LINEAR, POWER, LOG = 0, 1, 2
KIND_NAMES = ("linear", "power", "log")
R_CHOICES = (0.2, 0.5, 0.8, 0.95)  # spec "Data": exponents of the power family


@flax.struct.dataclass
class Valuation:
    """Valuations of the agents of one (or a batch of) instance(s); all fields share one shape."""

    w: Float[ArrayLike, "..."]  # [..., N]; a single agent's fields are 0-d inside a vmap over agents
    r: Float[ArrayLike, "..."]
    s: Float[ArrayLike, "..."]
    kind: Int[ArrayLike, "..."]

    # ------------------------------------------------------------------ constructors
    @classmethod
    def linear(cls, slopes) -> Valuation:
        """``v_i(x) = slope_i·x``; a zero slope is an absent (padding) agent."""
        w = jnp.asarray(slopes, dtype=jnp.result_type(float))
        return cls(w, jnp.zeros_like(w), jnp.ones_like(w), jnp.full(w.shape, LINEAR, jnp.int32))

    @classmethod
    def power(cls, w, r, s) -> Valuation:
        """``v_i(x) = w_i((x+s_i)^{1-r_i} - s_i^{1-r_i})/(1-r_i)`` with ``r ∈ (0, 1)``, ``s > 0``."""
        w, r, s = jnp.broadcast_arrays(*(jnp.asarray(a, dtype=jnp.result_type(float)) for a in (w, r, s)))
        return cls(w, r, s, jnp.full(w.shape, POWER, jnp.int32))

    @classmethod
    def log(cls, w, s) -> Valuation:
        """``v_i(x) = w_i·log(1 + x/s_i)`` with ``s > 0``."""
        w, s = jnp.broadcast_arrays(*(jnp.asarray(a, dtype=jnp.result_type(float)) for a in (w, s)))
        return cls(w, jnp.zeros_like(w), s, jnp.full(w.shape, LOG, jnp.int32))

    @classmethod
    def concat(cls, *parts: Valuation) -> Valuation:
        """Agents of several valuations side by side (along the last axis)."""
        return jax.tree.map(lambda *xs: jnp.concatenate(xs, axis=-1), *parts)

    def pad(self, n_max: int) -> Valuation:
        """Appends padding agents (``w = 0``) up to ``n_max`` agents."""
        n = self.w.shape[-1]
        if n_max < n:
            raise ConfigError(f"n_max={n_max} is smaller than the number of agents {n}; allowed n_max >= {n}")
        extra = Valuation.linear(jnp.zeros(self.w.shape[:-1] + (n_max - n,), self.w.dtype))
        return Valuation.concat(self, extra)

    # ------------------------------------------------------------------ properties
    @property
    def num_agents(self) -> int:
        return self.w.shape[-1]

    @property
    def active(self) -> Array:
        """Agents that are present (``w > 0``)."""
        return self.w > 0

    @property
    def is_linear(self) -> Array:
        return self.kind == LINEAR

    @property
    def rho(self) -> Array:
        """Elasticity exponent with ``v'(x) = w·(x+s)^{-rho}`` for every kind (linear 0, power r, log 1)."""
        return jnp.where(self.kind == LINEAR, 0.0, jnp.where(self.kind == POWER, self.r, 1.0)).astype(self.w.dtype)

    def __getitem__(self, idx) -> Valuation:
        """Selects instances (leading axes), e.g. ``vals[3]`` or ``vals[:10]``."""
        return jax.tree.map(lambda a: a[idx], self)

    # ------------------------------------------------------------------ the functions
    def value(self, x: Float[ArrayLike, "..."]) -> Float[Array, "..."]:
        """``v_i(x_i)`` elementwise (expm1/log1p forms keep small x accurate)."""
        one_r = 1.0 - self.r
        power = self.w * self.s**one_r * jnp.expm1(one_r * jnp.log1p(x / self.s)) / one_r
        log = self.w * jnp.log1p(x / self.s)
        return jnp.where(self.kind == LINEAR, self.w * x, jnp.where(self.kind == POWER, power, log))

    def marginal(self, x: Float[ArrayLike, "..."]) -> Float[Array, "..."]:
        """``v_i'(x_i)`` elementwise."""
        power = self.w * jnp.exp(-self.r * jnp.log(x + self.s))
        log = self.w / (x + self.s)
        return jnp.where(self.kind == LINEAR, self.w, jnp.where(self.kind == POWER, power, log))

    def demand(self, mu: Float[ArrayLike, "..."]) -> Float[Array, "... N"]:
        """Price-taking demand ``(v_i')^{-1}(mu)`` clipped to [0, 1] (the water-filling map).

        ``mu`` broadcasts against the instance axes (one price per instance). Linear agents have a flat
        demand: 1 when their slope exceeds ``mu`` and 0 otherwise (ties are resolved by the caller).
        """
        mu = jnp.maximum(jnp.asarray(mu)[..., None], jnp.finfo(self.w.dtype).tiny)
        safe_r = jnp.where(self.kind == POWER, self.r, 1.0)
        power = jnp.exp(jnp.log(self.w / mu) / safe_r) - self.s
        log = self.w / mu - self.s
        linear = jnp.where(self.w > mu, 1.0, 0.0)
        raw = jnp.where(self.kind == LINEAR, linear, jnp.where(self.kind == POWER, power, log))
        return jnp.clip(jnp.where(self.active, raw, 0.0), 0.0, 1.0)

    def inverse(self, b: Float[ArrayLike, "..."]) -> Float[Array, "..."]:
        """``v_i^{-1}(b_i)``: the smallest x with ``v_i(x) = b_i`` (``inf`` where v never reaches b).

        Used for the liquid-welfare cap ``x̄_i = v_i^{-1}(B_i)``; ``b = inf`` gives ``inf``.
        """
        w = jnp.where(self.active, self.w, 1.0)
        one_r = 1.0 - self.r
        power = self.s * jnp.expm1(jnp.log1p(one_r * b / (w * self.s**one_r)) / one_r)
        log = self.s * jnp.expm1(b / w)
        linear = b / w
        out = jnp.where(self.kind == LINEAR, linear, jnp.where(self.kind == POWER, power, log))
        return jnp.where(self.active, out, jnp.inf)


def random_instances(
    key: jax.Array,
    num: int,
    n_max: int,
    *,
    n_min: int = 2,
    family_probs: tuple[float, float, float] = (0.3, 0.5, 0.2),
    log10_s_range: tuple[float, float] = (-3.0, 0.5),
    dtype=None,
) -> Valuation:
    """``num`` random instances with ``n ~ U{n_min..n_max}`` agents, padded to ``n_max`` (spec "Data").

    Per agent: kind ∈ {linear, power, log} with ``family_probs``; ``w = u²``, ``u ~ U(0.05, 1)``;
    ``r`` uniform on {0.2, 0.5, 0.8, 0.95}; ``s ~ 10^U(log10_s_range)``. Padding agents are the last
    ``n_max - n`` of each row.
    """
    check_range("num", num, 1)
    check_range("n_min", n_min, 2)
    if n_max < n_min:
        raise ConfigError(f"n_max={n_max} is smaller than n_min={n_min}; allowed n_max >= n_min")
    probs = np.asarray(family_probs, dtype=np.float64)
    if probs.shape != (3,) or np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise ConfigError(
            f"family_probs={tuple(family_probs)!r} is not allowed; need 3 non-negative numbers "
            "(linear, power, log) summing to 1"
        )
    dtype = dtype or jnp.result_type(float)
    k_n, k_kind, k_w, k_r, k_s = jax.random.split(key, 5)
    shape = (num, n_max)
    n = jax.random.randint(k_n, (num, 1), n_min, n_max + 1)
    present = jnp.arange(n_max)[None, :] < n
    kind = jax.random.choice(k_kind, 3, shape, p=jnp.asarray(probs)).astype(jnp.int32)
    w = jax.random.uniform(k_w, shape, dtype, 0.05, 1.0) ** 2
    r = jnp.asarray(R_CHOICES, dtype)[jax.random.randint(k_r, shape, 0, len(R_CHOICES))]
    s = 10.0 ** jax.random.uniform(k_s, shape, dtype, *log10_s_range)
    r = jnp.where(kind == POWER, r, 0.0)
    s = jnp.where(kind == LINEAR, 1.0, s)
    kind = jnp.where(present, kind, LINEAR)
    return Valuation(jnp.where(present, w, 0.0), jnp.where(present, r, 0.0), jnp.where(present, s, 1.0), kind)


def sample_instances(key: jax.Array, cfg: InstanceConfig) -> Valuation:
    """Random instances as configured by an :class:`~jaxpapers.resource_allocation.config.InstanceConfig`."""
    return random_instances(key, **dataclasses.asdict(cfg))


def random_budgets(key: jax.Array, shape: tuple[int, ...], log10_range: tuple[float, float] = (-3.0, 0.0), dtype=None):
    """Budgets ``B_i ~ 10^U(log10_range)`` (spec "Data"; ``inf`` budgets recover the budget-free game)."""
    dtype = dtype or jnp.result_type(float)
    return 10.0 ** jax.random.uniform(key, shape, dtype, *log10_range)


def check_valuation(name: str, vals: Valuation, *, min_active: int = 2) -> None:
    """Raises ConfigError unless every instance of ``vals`` has ≥ ``min_active`` present agents and valid fields.

    A single agent is degenerate (its equilibrium bid tends to 0, spec "Pitfalls"). Skipped for traced
    values (inside jit the caller is responsible).
    """
    if isinstance(vals.w, jax.core.Tracer):
        return
    w, r, s, kind = (np.asarray(a) for a in (vals.w, vals.r, vals.s, vals.kind))
    if not (w.shape == r.shape == s.shape == kind.shape):
        raise ConfigError(
            f"{name}: fields w, r, s, kind must share one shape; got {w.shape}, {r.shape}, {s.shape}, {kind.shape}"
        )
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ConfigError(
            f"{name}.w has a negative or non-finite entry (min {float(w.min())!r}); allowed w >= 0 (0 = padding)"
        )
    if np.any(~np.isin(kind, (LINEAR, POWER, LOG))):
        raise ConfigError(f"{name}.kind has an unknown entry; allowed {LINEAR} (linear), {POWER} (power), {LOG} (log)")
    bad_r = (kind == POWER) & ((r <= 0) | (r >= 1))
    if np.any(bad_r):
        raise ConfigError(f"{name}.r={float(r[bad_r].ravel()[0])!r} is out of range for a power agent; allowed (0, 1)")
    if np.any(~(s > 0)):
        raise ConfigError(f"{name}.s={float(s[~(s > 0)].ravel()[0])!r} is out of range; allowed s > 0")
    n_act = (w > 0).sum(-1)
    if np.any(n_act < min_active):
        raise ConfigError(
            f"{name} has an instance with {int(n_act.min())} active agent(s) (w > 0); at least {min_active} are "
            "needed (a single agent's equilibrium bid tends to 0)"
        )
