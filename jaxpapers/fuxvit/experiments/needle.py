"""F7a/F7b/F7c: the needle task (spec F7). The FSA model, dense frame-causal attention and the static
per-frame ViT are trained by ``studies.trained`` on the same data from the same initial params.

F7a judges the FSA model with its coarse branch switched off at evaluation (the coarse branch
mixes every history frame's value summary, so it could carry the marker's colour without routing):
the answer must come through the routed frames. The switch is :func:`without_coarse_branch`, which
sets the coarse gate g_c = σ(·) to exactly 0 in every layer (its bias to −∞) and leaves the fine
branch and its gate untouched.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import ml_collections
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.claims import Measurement
from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit import routing, studies
from jaxpapers.fuxvit.figures import LEARNING_CAPTION, ROUTING_CAPTION, loss_curves, routing_map
from jaxpapers.fuxvit.train import classifier, evaluate_classifier


def without_coarse_branch(params: Any) -> Any:
    """``params`` with the coarse-branch gate of every FSA layer closed: the ``gate`` bias column of the
    coarse branch (index 1 of its last axis; b_c) set to −∞, so g_c = σ(−∞) = 0 and the coarse term
    g_c·coarse is exactly 0. Raises when the params have no gated FSA layer."""
    found = []

    def close(path, leaf):
        keys = [getattr(p, "key", getattr(p, "name", None)) for p in path]
        keys = keys[:-1] if keys[-1] == "value" else keys  # a LogicallyPartitioned box
        if "gate" in keys and keys[-1] == "bias":
            found.append(keys)
            return jnp.asarray(leaf).at[..., 1].set(-jnp.inf)
        return leaf

    out = jax.tree_util.tree_map_with_path(close, params)
    if not found:
        raise ConfigError("without_coarse_branch: no gate/bias params found (is the model gated FSA?)")
    return out


@jax.jit
def _layer_metrics(
    sel: Int[Array, "L B N T K"], needle: Int[Array, " B"]
) -> tuple[Float[Array, " L"], Float[Array, " L"]]:
    """(routing recall, routing entropy) of every layer, as one compiled program: run op by op, the
    two metrics compile each of their ~40 small ops separately (≈ 2 CPU-s per process)."""
    t = sel.shape[3]
    per_layer = jax.vmap(lambda s: (routing.routing_recall(s, needle), routing.routing_entropy(s, t)))
    return per_layer(sel)


def recall(sel: ArrayLike, needle: ArrayLike, k_frames: int, heads: int) -> dict[str, Any]:
    """Routing recall per layer (the needle frame in the last frame's selection, any head) from ``sel``
    [L, B, N, T, K], the chance level of a random router and the routing entropy per layer."""
    sel = jnp.asarray(sel, jnp.int32)
    rec, ent = _layer_metrics(sel, jnp.asarray(needle, jnp.int32))
    return {
        "recall_per_layer": [float(r) for r in rec],
        "chance_recall": routing.recall_chance(k_frames, sel.shape[3] - 1, heads),
        "entropy_per_layer": [float(e) for e in ent],
    }


def measure_routing(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F7a: held-out accuracy of the FSA model with the coarse branch off (judged) and on, and the routing
    recall of its first and last layer against a random router's chance level (reported)."""
    del key  # the config's seed drives data and init
    fsa = studies.trained(cfg, cfg.model.attn_impl)
    eval_set = studies.task(cfg)["eval_set"]
    off = evaluate_classifier(classifier(cfg), without_coarse_branch(fsa["params"]), eval_set)
    rec = recall(fsa["sel"], eval_set["needle_frame"], cfg.model.k_frames, cfg.model.num_heads)
    chance = rec["chance_recall"]
    return Measurement(
        measured={
            "acc_coarse_off": off["accuracy"],
            "acc_fsa": fsa["accuracy"],
            "routing_recall": rec["recall_per_layer"][0],
            "routing_recall_last_layer": rec["recall_per_layer"][-1],
        },
        predicted={"routing_recall": chance, "routing_recall_last_layer": chance},
        n=cfg.data.num_eval,
        details={"chance_accuracy": 1.0 / cfg.data.num_classes, **rec, "steps": cfg.train.steps},
        figures={
            "loss": loss_curves({"fsa": fsa}, "needle task", num_classes=cfg.data.num_classes),
            "routing": routing_map(fsa["sel"], eval_set["needle_frame"], fsa["sel"].shape[3]),
        },
        captions={"loss": LEARNING_CAPTION, "routing": ROUTING_CAPTION},
    )


def measure_vs_dense(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F7b: FSA (k = 2 of 7 history frames) against dense frame-causal attention (both as trained)."""
    del key
    fsa, dense = studies.trained(cfg, cfg.model.attn_impl), studies.trained(cfg, "dense_causal")
    needle = studies.task(cfg)["eval_set"]["needle_frame"]
    return Measurement(
        measured={
            "fsa_minus_dense": fsa["accuracy"] - dense["accuracy"],
            "acc_fsa": fsa["accuracy"],
            "acc_dense": dense["accuracy"],
        },
        n=cfg.data.num_eval,
        details={"steps": cfg.train.steps, **recall(fsa["sel"], needle, cfg.model.k_frames, cfg.model.num_heads)},
        figures={
            "loss": loss_curves({"fsa": fsa, "dense_causal": dense}, "needle task", num_classes=cfg.data.num_classes)
        },
        captions={"loss": LEARNING_CAPTION + " FSA's final accuracy should be close to dense attention's."},
    )


TITLES = {"needle_frames": "needle task", "moving_shapes": "motion direction"}


def measure_static(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """F7c and F8b: the static per-frame ViT (k = 0) on the task of ``cfg``: it sees one frame at a time
    (and, with RoPE only, no absolute time), so it can read neither the needle frame nor motion."""
    del key
    static = studies.trained(cfg, "static")
    chance = 1.0 / cfg.data.num_classes
    return Measurement(
        measured=static["accuracy"],
        predicted=chance,
        n=cfg.data.num_eval,
        details={"chance_accuracy": chance, "variant": cfg.get("variant"), "steps": cfg.train.steps},
        figures={"loss": loss_curves({"static": static}, TITLES[cfg.data.task], num_classes=cfg.data.num_classes)},
        captions={"loss": LEARNING_CAPTION + " The static per-frame ViT is expected to stay at chance."},
    )
