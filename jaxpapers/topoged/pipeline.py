"""The public pipeline: ``TopoGED(model_cfg, train_cfg).fit(snaps, n_train, n_val)``, ``forecast(t, mode)`` and
``evaluate(targets)`` (spec, "What to build": pipeline.py).

``fit`` computes training thresholds, Φ and count series, fits the memory parameters on validation node F1 and
trains the decoder (or takes trained parameters, as the memoised study does for several seeds at once).
``forecast(t, mode)`` decodes Ĝ_t from G_0..G_{t−1} only. Modes: ``topoged`` (V-EWMA budgets, guided),
``oracle`` (true Φ(G_t) and counts), ``unguided`` (oracle budgets, no caps or level penalty), ``random_probs``,
``random_phi_ref`` and ``random_phi_same`` (the ablations under the code's names).
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.topoged.config import MODES, DecoderTrainConfig, ModelConfig
from jaxpapers.topoged.data.events import Snapshot
from jaxpapers.topoged.decoder import DecodeSettings, decode_snapshot, make_history
from jaxpapers.topoged.descriptor import degree_thresholds, phi
from jaxpapers.topoged.edge_types import classify, count_vector
from jaxpapers.topoged.forecast import Budgets, budgets_from, forecast_budgets, largest_remainder, oracle_budgets
from jaxpapers.topoged.memory import fit_memory_params
from jaxpapers.topoged.training import pad_sizes, snapshot_example, stack_examples, train_decoder


def split_sizes(n: int, train_frac: float, val_frac: float) -> tuple[int, int]:
    """(n_train, n_val) of a chronological split (the rest is test)."""
    n_train = int(round(train_frac * n))
    n_val = int(round(val_frac * n))
    check_range("number of test snapshots", n - n_train - n_val, 1)
    return n_train, n_val


def random_phi(rng: np.random.Generator, n_levels: int, keep: Budgets | None) -> np.ndarray:
    """``random_phi_ref`` (keep=None): x_1 ∈ {1..9}, each later level adds U{0..249} nodes, y grows by a uniform
    draw up to C(x, 2); ``random_phi_same``: random monotone levels with ``keep``'s terminal counts."""
    if keep is None:
        x = np.cumsum(np.concatenate([[rng.integers(1, 10)], rng.integers(0, 250, size=n_levels - 1)]))
        y = np.zeros(n_levels, np.int64)
        for i in range(n_levels):
            lo = y[i - 1] if i else 0
            y[i] = rng.integers(lo, max(lo, x[i] * (x[i] - 1) // 2) + 1)
    else:
        xv, yv = int(keep.phi_hat[-2]), int(keep.phi_hat[-1])
        x = np.sort(np.concatenate([rng.integers(0, xv + 1, size=n_levels - 1), [xv]]))
        y = np.sort(np.concatenate([rng.integers(0, yv + 1, size=n_levels - 1), [yv]]))
        y = np.minimum(y, x * (x - 1) // 2)
        y[-1] = yv
    return np.stack([x, y], 1).reshape(-1)


@dataclasses.dataclass
class TopoGED:
    """The forecaster on one snapshot series."""

    model: ModelConfig = ModelConfig()
    train_cfg: DecoderTrainConfig = DecoderTrainConfig()

    def prepare(self, snaps: list[Snapshot], n_train: int, n_val: int, seed: int = 0) -> TopoGED:
        """Everything except the decoder's training: thresholds (train only), Φ and count series, memory fit."""
        m = self.model
        self.snaps, self.n_train, self.n_val, self.seed = snaps, n_train, n_val, seed
        self.thresholds = degree_thresholds(snaps[:n_train], m.n_levels)
        self.is_new, self.types = classify(snaps, m.k, m.history)
        self.phis = np.array([phi(s, self.thresholds) for s in snaps], np.float64)
        self.counts = np.array([count_vector(a, b).as_array() for a, b in zip(self.is_new, self.types, strict=True)])
        self.mem = (m.mem_alpha, m.mem_beta, m.mem_lambda)
        if m.fit_memory:
            val = list(range(n_train, n_train + n_val))
            n_old = [forecast_budgets(self.phis[:t], self.counts[:t], alpha=m.ewma_alpha).n_old for t in val]
            self.mem, self.mem_val_f1 = fit_memory_params(
                [snaps[max(0, t - m.k) : t] for t in val], [snaps[t] for t in val], n_old,
                (m.alpha_grid, m.beta_grid, m.lambda_grid), degree=m.mem_degree, seed=seed)
        return self

    def training_examples(self) -> list[dict]:
        rng = np.random.default_rng(self.seed + 1000)
        return [snapshot_example(self.snaps, self.is_new, self.types, s, self.thresholds, self.model,
                                 self.train_cfg.neg_ratio, rng) for s in range(1, self.n_train)]

    def validation_examples(self) -> list[dict]:
        """Labelled pairs of the validation targets, built like the training ones (for early stopping)."""
        rng = np.random.default_rng(self.seed + 2000)
        return [snapshot_example(self.snaps, self.is_new, self.types, s, self.thresholds, self.model,
                                 self.train_cfg.neg_ratio, rng) for s in range(self.n_train, self.n_train + self.n_val)]

    def fit(self, snaps: list[Snapshot], n_train: int, n_val: int, seed: int = 0) -> TopoGED:
        """prepare + train the decoder (one seed)."""
        self.prepare(snaps, n_train, n_val, seed)
        ex, vex = self.training_examples(), self.validation_examples()
        data = jax.tree.map(lambda a: a[None], stack_examples(ex, *pad_sizes(ex)))
        val = jax.tree.map(lambda a: a[None], stack_examples(vex, *pad_sizes(vex)))
        self.train_info: dict = {}
        params, self.losses = train_decoder(data, self.model, self.train_cfg, jax.random.key(seed)[None], val,
                                            self.train_info)
        self.params = jax.tree.map(lambda a: a[0], params)
        return self

    def budgets(self, t: int, mode: str, rng: np.random.Generator) -> Budgets:
        """The budgets a mode decodes with at target t (nothing of G_t enters except in the oracle modes)."""
        check_choice("mode", mode, MODES)
        m = self.model
        if mode in ("oracle", "unguided"):
            return oracle_budgets(self.phis[t], count_vector(self.is_new[t], self.types[t]))
        b = forecast_budgets(self.phis[:t], self.counts[:t], alpha=m.ewma_alpha)
        if mode == "random_probs":
            p_new = rng.uniform()
            n_old = int(np.floor(b.V * (1 - p_new)))
            return Budgets(b.V, b.E, n_old, b.V - n_old, largest_remainder(rng.uniform(size=4), b.E), b.phi_hat)
        if mode == "random_phi_ref":
            return budgets_from(random_phi(rng, m.n_levels, None), _ewma(self, t))
        if mode == "random_phi_same":
            return budgets_from(random_phi(rng, m.n_levels, b), _ewma(self, t))
        return b

    def forecast(self, t: int, mode: str = "topoged", seed: int = 0) -> tuple[Snapshot, dict]:
        """Ĝ_t decoded from G_0..G_{t−1}; details hold the budgets, phase counts and the new nodes' bins."""
        m = self.model
        rng = np.random.default_rng([self.seed, t, MODES.index(mode), seed])
        b = self.budgets(t, mode, rng)
        settings = DecodeSettings(m.n_levels, m.k, self.mem, m.mem_degree, m.partners, m.pool_factor, m.gamma_f,
                                  m.gamma_c, guided=mode != "unguided", reencode=m.reencode)
        hist = make_history(self.snaps[max(0, t - m.k) : t])
        snap, info = decode_snapshot(self.params, hist, b, self.thresholds, rng, settings)
        ids, bins = info["ids"], info["bins"]
        info["new_bins"] = {int(-1 - v): int(bb) for v, bb in zip(ids.tolist(), bins.tolist(), strict=True) if v < 0}
        info["budgets"] = b
        return snap, info


def _ewma(model: TopoGED, t: int) -> np.ndarray:
    from jaxpapers.topoged.forecast import vewma

    return vewma(model.counts[:t], model.model.ewma_alpha)
