"""Typed settings of the dp_bounds experiments: frozen, validated dataclasses (no JAX here).

================  ==========================  ==================================================
group             class                       claims (config file)
================  ==========================  ==================================================
``closed``        :class:`ClosedFormConfig`   D1, D7 (configs/dp_bounds/closed_forms.py)
``rr``            :class:`RRConfig`           D2 (configs/dp_bounds/randomized_response.py)
``acct``          :class:`AccountingConfig`   D3 (configs/dp_bounds/accounting.py)
``lm``            :class:`LMConfig`           D4, D6, D8 (configs/dp_bounds/attacks.py)
``tab``           :class:`TabularConfig`      D5, D8 (configs/dp_bounds/attacks.py)
================  ==========================  ==================================================
"""

from __future__ import annotations

import dataclasses
import math

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

RELATIONS = ("add_remove", "replace_one")


def _check_eps_list(name: str, eps: tuple[float, ...], allow_inf: bool = True) -> None:
    if not eps:
        raise ConfigError(f"{name}=() is not allowed; need at least one ε > 0")
    for i, e in enumerate(eps):
        if allow_inf and math.isinf(e):
            continue
        check_range(f"{name}[{i}]", e, 0.0, 100.0, lo_open=True)


@dataclasses.dataclass(frozen=True)
class ClosedFormConfig:
    """D1 (closed forms, curve-from-profile check) and D7 (multi-target cap vs group privacy and Markov)."""

    mus: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
    m: int = 100
    eps: float = 1.0
    kappa: float = 0.01
    beta: float = 0.05

    def __post_init__(self):
        for i, mu in enumerate(self.mus):
            check_range(f"closed.mus[{i}]", mu, 0.0, 20.0, lo_open=True)
        check_range("closed.m", self.m, 1, 10_000)
        check_range("closed.eps", self.eps, 0.0, 50.0, lo_open=True)
        check_range("closed.kappa", self.kappa, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("closed.beta", self.beta, 0.0, 1.0, lo_open=True, hi_open=True)


@dataclasses.dataclass(frozen=True)
class RRConfig:
    """D2: k-ary randomized response on m individuals with uniform prior, ``runs`` Monte-Carlo runs."""

    k: int = 10
    eps: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
    m: int = 100
    runs: int = 2000
    beta: float = 0.01

    def __post_init__(self):
        check_range("rr.k", self.k, 2, 10_000)
        _check_eps_list("rr.eps", self.eps, allow_inf=False)
        check_range("rr.m", self.m, 1, 100_000)
        check_range("rr.runs", self.runs, 10, 10_000_000)
        check_range("rr.beta", self.beta, 0.0, 1.0, lo_open=True, hi_open=True)


@dataclasses.dataclass(frozen=True)
class AccountingConfig:
    """D3: one DP-SGD event (Poisson rate q, noise σ, T steps) through dp_accounting's PLD and RDP."""

    q: float = 0.01
    sigma: float = 1.0
    steps: int = 1000
    delta: float = 1e-5
    discretization: float = 1e-3

    def __post_init__(self):
        check_range("acct.q", self.q, 0.0, 1.0, lo_open=True)
        check_range("acct.sigma", self.sigma, 0.0, lo_open=True)
        check_range("acct.steps", self.steps, 1, 10**7)
        check_range("acct.delta", self.delta, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("acct.discretization", self.discretization, 0.0, 0.1, lo_open=True)


@dataclasses.dataclass(frozen=True)
class LMConfig:
    """Setting A: DP-SGD fine-tuning of a byte-level transformer and the secret-extraction attack (D4, D6, D8)."""

    n_private: int = 64  # private users = targets (half Zipf prior, half uniform prior)
    n_public: int = 128
    k_pw: int = 256  # candidate passwords
    zipf_s: float = 1.0
    context: int = 44
    layers: int = 2
    d_model: int = 64
    heads: int = 4
    pretrain_steps: int = 100
    pretrain_batch: int = 32
    pretrain_lr: float = 1e-3
    dp_steps: int = 100
    q: float = 0.25
    capacity: int = 32
    clip: float = 1.0
    delta: float = 1e-5
    eps: tuple[float, ...] = (1.0, math.inf)
    lr_private: float = 1e-4
    lr_nonprivate: float = 1e-3
    topk: int = 10
    beta: float = 0.01
    report_beta: float = 0.05
    discretization: float = 1e-3
    seeds: tuple[int, ...] = (0,)

    def __post_init__(self):
        check_range("lm.n_private", self.n_private, 2, 10**6)
        if self.n_private % 2:
            raise ConfigError(f"lm.n_private={self.n_private!r} is not allowed; need an even number (two groups)")
        check_range("lm.n_public", self.n_public, 1, 10**6)
        check_range("lm.k_pw", self.k_pw, 2, 100_000)
        check_range("lm.zipf_s", self.zipf_s, 0.0, 5.0)
        check_range("lm.context", self.context, 16, 4096)
        check_range("lm.layers", self.layers, 1, 64)
        check_range("lm.d_model", self.d_model, 8, 8192)
        check_range("lm.heads", self.heads, 1, 128)
        if self.d_model % self.heads:
            raise ConfigError(f"lm.heads={self.heads!r} does not divide lm.d_model={self.d_model}")
        check_range("lm.pretrain_steps", self.pretrain_steps, 1, 10**7)
        check_range("lm.pretrain_batch", self.pretrain_batch, 1, 10**5)
        check_range("lm.pretrain_lr", self.pretrain_lr, 0.0, 1.0, lo_open=True)
        check_range("lm.dp_steps", self.dp_steps, 1, 10**7)
        check_range("lm.q", self.q, 0.0, 1.0, lo_open=True)
        check_range("lm.capacity", self.capacity, 1, self.n_private)
        check_range("lm.clip", self.clip, 0.0, lo_open=True)
        check_range("lm.delta", self.delta, 0.0, 1.0, lo_open=True, hi_open=True)
        _check_eps_list("lm.eps", self.eps)
        check_range("lm.lr_private", self.lr_private, 0.0, 1.0, lo_open=True)
        check_range("lm.lr_nonprivate", self.lr_nonprivate, 0.0, 1.0, lo_open=True)
        check_range("lm.topk", self.topk, 1, self.k_pw)
        check_range("lm.beta", self.beta, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("lm.report_beta", self.report_beta, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("lm.discretization", self.discretization, 0.0, 0.1, lo_open=True)
        if not self.seeds:
            raise ConfigError("lm.seeds=() is not allowed; need at least one seed")


@dataclasses.dataclass(frozen=True)
class TabularConfig:
    """Setting B: reconstruction of secret columns from Gaussian-noised 3-way marginals (D5, D8)."""

    n: int = 64
    d_pub: int = 12
    d_sec: int = 6
    weight_scale: float = 1.5
    steps: int = 300
    restarts: int = 4
    lr: float = 0.05
    sigma_floor: float = 0.3
    eps: tuple[float, ...] = (1.0, 8.0, math.inf)
    delta: float = 1e-5
    approx_bits: int = 5
    beta: float = 0.01
    report_beta: float = 0.05
    seeds: tuple[int, ...] = (0,)

    def __post_init__(self):
        check_range("tab.n", self.n, 1, 10**6)
        check_range("tab.d_pub", self.d_pub, 2, 1000)
        check_range("tab.d_sec", self.d_sec, 1, 30)
        check_range("tab.weight_scale", self.weight_scale, 0.0)
        check_range("tab.steps", self.steps, 1, 10**6)
        check_range("tab.restarts", self.restarts, 1, 1000)
        check_range("tab.lr", self.lr, 0.0, 10.0, lo_open=True)
        check_range("tab.sigma_floor", self.sigma_floor, 0.0, lo_open=True)
        _check_eps_list("tab.eps", self.eps)
        check_range("tab.delta", self.delta, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("tab.approx_bits", self.approx_bits, 1, self.d_sec)
        check_range("tab.beta", self.beta, 0.0, 1.0, lo_open=True, hi_open=True)
        check_range("tab.report_beta", self.report_beta, 0.0, 1.0, lo_open=True, hi_open=True)
        if not self.seeds:
            raise ConfigError("tab.seeds=() is not allowed; need at least one seed")


def check_relation(name: str, relation: str) -> None:
    """Raises ConfigError unless ``relation`` is a neighbouring relation we support."""
    check_choice(name, relation, RELATIONS)
