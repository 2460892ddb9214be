"""Trained tiny classifiers shared by several claims (F7a/F7b/F7c on the needle task, F8a/F8b/F8c on
motion): each (config, attention impl) is trained once per process (``core.memo.shared``).

Every impl of one config trains on the same data from the same initial params (every impl has the
same param tree), through ``train.fit_model`` (``core.train.train_model``), and is evaluated on the
held-out set (seed ``cfg.seed + 1``).
"""

from __future__ import annotations

from typing import Any

import ml_collections

from jaxpapers.core import config as config_lib
from jaxpapers.core import memo
from jaxpapers.fuxvit.train import classifier, evaluate_classifier, fit_model, init_params, task_data


def task(cfg: ml_collections.ConfigDict) -> dict[str, Any]:
    """``{"train_set", "eval_set", "params"}``: the data and the initial params every impl starts from."""

    def build() -> dict[str, Any]:
        train_set = task_data(cfg, cfg.data.num_train, cfg.seed)
        return {
            "train_set": train_set,
            "eval_set": task_data(cfg, cfg.data.num_eval, cfg.seed + 1),
            "params": init_params(cfg, train_set),
        }

    return memo.shared("fuxvit/task", cfg, fn=build)


def impl_config(cfg: ml_collections.ConfigDict, impl: str) -> ml_collections.ConfigDict:
    """``cfg`` with attention ``impl`` (``static`` also sets k = 0: a per-frame ViT)."""
    return config_lib.apply_overrides(
        cfg, {"model.attn_impl": impl, **({"model.k_frames": 0} if impl == "static" else {})}
    )


def trained(cfg: ml_collections.ConfigDict, impl: str) -> dict[str, Any]:
    """The classifier of ``cfg`` with attention ``impl``, trained and evaluated on the held-out set:
    ``{"history", "params", "accuracy", "sel"}`` (``sel`` [L, B, N, T, K] for routed impls)."""

    def run() -> dict[str, Any]:
        data = task(cfg)
        cfg_i = impl_config(cfg, impl)
        result = fit_model(cfg_i, data["train_set"], params=data["params"], progress=False)
        ev = evaluate_classifier(classifier(cfg_i), result.state.params, data["eval_set"])
        return {"history": result.history, "params": result.state.params, **ev}

    return memo.shared("fuxvit/trained", cfg, impl, fn=run)
