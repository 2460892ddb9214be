"""Chinchilla-form loss laws, the compute-optimal frontier and the data-constrained variants.

Implements (spec "Scaling law (established)"):

* L(N, D) = E0 + A·N^{-α} + B·D^{-β} (Hoffmann et al. 2022, eq. 2) with three published constant sets;
* the compute-optimal frontier at C = 6ND FLOPs: N_opt = G·(C/6)^a, D_opt = G^{-1}·(C/6)^b with
  a = β/(α+β), b = α/(α+β), G = (αA/(βB))^{1/(α+β)}, and reducible loss ℓ*(C) = K·C^{-λ},
  λ = αβ/(α+β), K = 6^λ (A·G^{-α} + B·G^{β});
* the data-optimal model size N_opt(D) = (αA/(βB))^{1/α}·D^{β/α} (the frontier read backwards);
* the data-constrained effective parameters and tokens of Muennighoff et al. 2023 (eqs. 5-6).

Quantities span 30 orders of magnitude (C up to 1e30 FLOPs), so every function has a log-space form
(``*_log``) that the solvers use; nothing here forms 6ND directly.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax.numpy as jnp
from flax import struct
from jaxtyping import ArrayLike, Float

from jaxpapers.core.checks import check_choice, check_range

Scalar = Float[ArrayLike, "..."] | float  # one value, or a batch (leaves carry the batch axis)


@struct.dataclass(kw_only=True)
class LossLaw:
    """Constants of L(N, D) = E0 + A·N^{-α} + B·D^{-β}.

    A pytree: the five constants are leaves (so ``jax.vmap`` can sweep A or B for comparative statics) and
    ``name`` is static metadata naming the published set they come from.
    """

    E0: Scalar
    A: Scalar
    B: Scalar
    alpha: Scalar
    beta: Scalar
    name: str = struct.field(pytree_node=False, default="custom")


# Hoffmann et al. 2022, Approach 3, as printed in the paper body (rounded exponents).
HOFFMANN_ROUNDED = LossLaw(E0=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28, name="hoffmann_rounded")
# The same fit with the exponents of the paper's TeX source (Besiroglu et al. 2024, sec. 2); E0, A and B are
# printed identically in both places. Use one set whole: mixing rounded A, B with these exponents (or vice versa)
# is what biases predictions.
HOFFMANN_UNROUNDED = LossLaw(E0=1.69, A=406.4, B=410.7, alpha=0.3392, beta=0.2849, name="hoffmann_unrounded")
# Besiroglu, Erdil, Barnett & You 2024, "Chinchilla Scaling: A replication attempt", Table 1 (the default).
BESIROGLU = LossLaw(E0=1.8172, A=482.01, B=2085.43, alpha=0.3478, beta=0.3658, name="besiroglu")

LAWS: dict[str, LossLaw] = {law.name: law for law in (BESIROGLU, HOFFMANN_ROUNDED, HOFFMANN_UNROUNDED)}

# Muennighoff et al. 2023, eq. 5-6 fits: the repetition "half-lives" of data and of excess parameters.
MUENNIGHOFF_R_D_STAR = 15.4
MUENNIGHOFF_R_N_STAR = 5.3


def get_law(name: str) -> LossLaw:
    """The published constant set called ``name`` ('besiroglu', 'hoffmann_rounded' or 'hoffmann_unrounded')."""
    check_choice("law", name, LAWS)
    return LAWS[name]


def validate_law(law: LossLaw, *, where: str = "law") -> None:
    """Raises ConfigError unless the concrete constants are positive (E0 ≥ 0) and finite."""
    for field in ("A", "B", "alpha", "beta"):
        check_range(f"{where}.{field}", getattr(law, field), 0.0, math.inf, lo_open=True, hi_open=True)
    check_range(f"{where}.E0", law.E0, 0.0, math.inf, hi_open=True)


class FrontierConstants(NamedTuple):
    """Constants of the compute-optimal frontier (see module docstring)."""

    a: Float[ArrayLike, "..."]  # N_opt ∝ C^a
    b: Float[ArrayLike, "..."]  # D_opt ∝ C^b
    lam: Float[ArrayLike, "..."]  # ℓ*(C) ∝ C^{-λ}
    G: Float[ArrayLike, "..."]
    K: Float[ArrayLike, "..."]


def frontier_constants(law: LossLaw) -> FrontierConstants:
    """a, b, λ, G and K of the compute-optimal frontier (Hoffmann et al. 2022, eq. 4; our K)."""
    al, be = jnp.asarray(law.alpha), jnp.asarray(law.beta)
    s = al + be
    G = (al * law.A / (be * law.B)) ** (1.0 / s)
    lam = al * be / s
    K = 6.0**lam * (law.A * G**-al + law.B * G**be)
    return FrontierConstants(a=be / s, b=al / s, lam=lam, G=G, K=K)


def reducible_loss_log(
    law: LossLaw, log_n: Float[ArrayLike, "..."], log_d: Float[ArrayLike, "..."]
) -> Float[ArrayLike, "..."]:
    """ℓ = A·N^{-α} + B·D^{-β} from log N and log D (natural logs)."""
    return law.A * jnp.exp(-law.alpha * log_n) + law.B * jnp.exp(-law.beta * log_d)


def reducible_loss(law: LossLaw, n: Float[ArrayLike, "..."], d: Float[ArrayLike, "..."]) -> Float[ArrayLike, "..."]:
    """ℓ(N, D) = L(N, D) − E0."""
    return reducible_loss_log(law, jnp.log(n), jnp.log(d))


def loss(law: LossLaw, n: Float[ArrayLike, "..."], d: Float[ArrayLike, "..."]) -> Float[ArrayLike, "..."]:
    """L(N, D) = E0 + A·N^{-α} + B·D^{-β} (Hoffmann et al. 2022, eq. 2)."""
    return law.E0 + reducible_loss(law, n, d)


def frontier_log(
    law: LossLaw, log_c: Float[ArrayLike, "..."]
) -> tuple[Float[ArrayLike, "..."], Float[ArrayLike, "..."], Float[ArrayLike, "..."]]:
    """(log N_opt, log D_opt, ℓ*) on the compute-optimal frontier at log C (C = 6ND FLOPs)."""
    fc = frontier_constants(law)
    log_c6 = log_c - math.log(6.0)
    log_n = jnp.log(fc.G) + fc.a * log_c6
    log_d = -jnp.log(fc.G) + fc.b * log_c6
    return log_n, log_d, reducible_loss_log(law, log_n, log_d)


def frontier(
    law: LossLaw, c: Float[ArrayLike, "..."]
) -> tuple[Float[ArrayLike, "..."], Float[ArrayLike, "..."], Float[ArrayLike, "..."]]:
    """(N_opt, D_opt, ℓ*) minimising ℓ(N, D) subject to 6ND = C (closed form)."""
    log_n, log_d, ell = frontier_log(law, jnp.log(c))
    return jnp.exp(log_n), jnp.exp(log_d), ell


def log_n_opt_for_data(law: LossLaw, log_d: Float[ArrayLike, "..."]) -> Float[ArrayLike, "..."]:
    """log N_opt(D) = (1/α)·log(αA/(βB)) + (β/α)·log D: the compute-optimal size for D training tokens."""
    return jnp.log(law.alpha * law.A / (law.beta * law.B)) / law.alpha + (law.beta / law.alpha) * log_d


def n_opt_for_data(law: LossLaw, d: Float[ArrayLike, "..."]) -> Float[ArrayLike, "..."]:
    """N_opt(D) = (αA/(βB))^{1/α}·D^{β/α} (≈ D/18.7 at D = 1e12 for Besiroglu)."""
    return jnp.exp(log_n_opt_for_data(law, jnp.log(d)))


def muennighoff_effective_log(
    law: LossLaw,
    log_n: Float[ArrayLike, "..."],
    log_repeats: Float[ArrayLike, "..."],
    log_unique: Float[ArrayLike, "..."],
    r_d_star: Scalar = MUENNIGHOFF_R_D_STAR,
    r_n_star: Scalar = MUENNIGHOFF_R_N_STAR,
) -> tuple[Float[ArrayLike, "..."], Float[ArrayLike, "..."]]:
    """(log N′, log D′): effective parameters and tokens under data repetition (Muennighoff et al. 2023).

    ``log_repeats`` is log R_D = log(epochs − 1) (so one epoch is log R_D = −∞); U = exp(log_unique) unique
    tokens. D′ = U·(1 + R_D*·(1 − e^{−R_D/R_D*})); with U_N = min(N, N_opt(U)) and R_N = N/U_N − 1,
    N′ = U_N·(1 + R_N*·(1 − e^{−R_N/R_N*})). Both are C¹ in log N and log R_D (the min has matching slopes).
    """
    r_d = jnp.exp(log_repeats)
    log_d_eff = log_unique + jnp.log1p(-r_d_star * jnp.expm1(-r_d / r_d_star))
    log_u_n = jnp.minimum(log_n, log_n_opt_for_data(law, log_unique))
    r_n = jnp.expm1(log_n - log_u_n)
    log_n_eff = log_u_n + jnp.log1p(-r_n_star * jnp.expm1(-r_n / r_n_star))
    return log_n_eff, log_d_eff


def muennighoff_effective(
    law: LossLaw,
    n: Float[ArrayLike, "..."],
    epochs: Float[ArrayLike, "..."],
    unique: Float[ArrayLike, "..."],
    r_d_star: Scalar = MUENNIGHOFF_R_D_STAR,
    r_n_star: Scalar = MUENNIGHOFF_R_N_STAR,
) -> tuple[Float[ArrayLike, "..."], Float[ArrayLike, "..."]]:
    """(N′, D′) for N parameters trained for ``epochs`` (≥ 1) passes over ``unique`` tokens."""
    log_n_eff, log_d_eff = muennighoff_effective_log(
        law, jnp.log(n), jnp.log(jnp.asarray(epochs) - 1.0), jnp.log(unique), r_d_star, r_n_star
    )
    return jnp.exp(log_n_eff), jnp.exp(log_d_eff)
