"""U6 (specialization preserves text), U7 (recipe integrity) and U9 (scale shapes) on UniALM (spec "Claims").

* U6: random params (the experts' zero-initialised projections replaced by random ones, so the experts do
  something), three seeds in one vmapped program: text logits of text-only sequences against the backbone-only
  LM, the experts' gradients on them, and the understanding expert's output at audio frames after editing every
  text token.
* U7: (a) the four-stage toy training run (:func:`jaxpapers.unialm.stages.train_stages`): frozen leaves stay
  bit-identical, trainable ones move; (b) S2 → S3 insertion with zero-initialised experts changes no logit;
  (c) every task format's loss mask is its target segments exactly (against an independent count of segment
  lengths); (d) the CFG drop rate over 10,000 generation examples.
* U9: (a) the closed-form parameter count against the leaves of ``jax.eval_shape(init)`` at the paper config
  and a second width; (b) logical names, rule coverage and divisibility on the spec's three meshes for the
  abstract paper tree; (c) one executed training step on 8 emulated devices against the single-device step
  (:mod:`jaxpapers.unialm.sharded`, run in a subprocess).
"""

from __future__ import annotations

import math
import time
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.core import axes, sim
from jaxpapers.core.claims import Measurement
from jaxpapers.core.config import to_dataclass
from jaxpapers.core.errors import ClaimSkipped
from jaxpapers.core.multidevice import run_with_devices
from jaxpapers.unialm import sequence, stages
from jaxpapers.unialm.lm import UniALM, UniALMConfig, backbone_lm_logits, parameter_count


def lm_config(cfg: ml_collections.ConfigDict) -> UniALMConfig:
    return to_dataclass(UniALMConfig, cfg.model)


def _no_full(cfg: ml_collections.ConfigDict) -> None:
    if cfg.get("preset") == "full":
        raise ClaimSkipped(
            "the full preset of this claim (paper config on one accelerator, spec table) is not built yet; "
            "quick and tiny run the checks at toy size and the paper shapes abstractly"
        )


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(t0: tuple[float, float]) -> dict[str, float]:
    return {"wall_s": time.perf_counter() - t0[0], "cpu_s": time.process_time() - t0[1]}


def randomize_experts(params: Any, key: jax.Array, scale: float = 0.05) -> Any:
    """``params`` with every expert leaf (``understanding*``, ``generation*``) replaced by N(0, scale²) noise."""
    p = nn.meta.unbox(params)["params"]
    out = {}
    for i, (name, sub) in enumerate(sorted(p.items())):
        if name.startswith(("understanding", "generation")):
            leaves, tree = jax.tree.flatten(sub)
            keys = jax.random.split(jax.random.fold_in(key, i), len(leaves))
            noise = [scale * jax.random.normal(k, x.shape) for x, k in zip(leaves, keys, strict=True)]
            sub = jax.tree.unflatten(tree, noise)
        out[name] = sub
    return {"params": out}


def specialization_checks(cfg: UniALMConfig, key: jax.Array, length: int) -> dict[str, jax.Array]:
    """U6 for one seed: max |UniALM − backbone-only| text logit on a text-only sequence, max |expert gradient|
    of a text CE on it, and max |Δ understanding output| at audio frames after editing every text token."""
    model = UniALM(cfg)
    q = cfg.codebooks
    k_init, k_exp, k_codes, k_text, k_edit, k_audio, k_tgt = jax.random.split(key, 7)
    codes = jax.random.randint(k_codes, (1, length, q), 0, cfg.codebook_vocab)
    text = jax.random.randint(k_text, (1, length, 1), 0, cfg.text_vocab)
    frames = jnp.concatenate([codes, text], -1)
    none = jnp.zeros((1, length), bool)
    params = randomize_experts(model.init(k_init, frames, none), k_exp)
    text_logits = model.apply(params, frames, none)["text_logits"]
    reference = backbone_lm_logits(params, cfg, frames[..., q])
    logit_diff = jnp.max(jnp.abs(text_logits - reference))
    targets = jax.random.randint(k_tgt, (1, length), 0, cfg.text_vocab)

    def text_ce(p):
        logp = jax.nn.log_softmax(model.apply(p, frames, none)["text_logits"])
        return -jnp.take_along_axis(logp, targets[..., None], -1).mean()

    grads = jax.grad(text_ce)(params)["params"]
    expert = [g for n, sub in grads.items() if n.startswith(("understanding", "generation"))
              for g in jax.tree.leaves(sub)]  # fmt: skip
    expert_grad = jnp.max(jnp.stack([jnp.max(jnp.abs(g)) for g in expert]))
    audio = jax.random.uniform(k_audio, (1, length)) < 0.5
    edited = frames.at[..., q].set(jax.random.randint(k_edit, (1, length), 0, cfg.text_vocab))
    # text frames also move: a text query before every audio frame sees only itself (spec §3 step 2)
    und = [model.apply(params, f, audio, mutable="intermediates")[1]["intermediates"]["understanding"][0]
           for f in (frames, edited)]  # fmt: skip
    und_diff = jnp.max(jnp.where(audio[..., None], jnp.abs(und[0] - und[1]), 0.0))
    return {"text_logit_diff": logit_diff, "expert_grad": expert_grad, "understanding_diff": und_diff}


def measure_specialization(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """U6: :func:`specialization_checks` over ``cfg.u6.seeds`` seeds in one vmapped, jitted program."""
    _no_full(cfg)
    t0 = _clock()
    model_cfg = lm_config(cfg)
    keys = jax.random.split(key, cfg.u6.seeds)
    run = jax.jit(jax.vmap(lambda k: specialization_checks(model_cfg, k, cfg.u6.length)),
                  compiler_options=sim.fast_compile_options())  # fmt: skip
    out = run(keys)
    per_seed = {k: np.asarray(v, np.float64) for k, v in out.items()}
    measured = {f"max_{k}": float(v.max()) for k, v in per_seed.items()}
    return Measurement(
        measured=measured,
        n=cfg.u6.seeds,
        details={"per_seed": {k: v.tolist() for k, v in per_seed.items()}, **_since(t0)},
    )


def expected_loss_mask(segments: list[sequence.Segment], q: int) -> np.ndarray:
    """The loss mask a rendered example must have, from segment lengths alone (text: ids + 2 tags; A and R:
    codes + BOS + EOS; P: codes + 4)."""
    rows = []
    for seg in segments:
        n = len(seg.ids) + 2 if seg.kind == "text" else len(seg.ids) + (4 if seg.kind == "P" else 2)
        row = np.zeros((n, q + 1), bool)
        if seg.target:
            row[:, q if seg.kind == "text" else slice(0, q)] = True
        rows.append(row)
    return np.concatenate(rows)


def format_mask_mismatches(cfg: UniALMConfig, rng: np.random.Generator) -> dict[str, int]:
    """U7(c): per task, the number of loss-mask entries that differ from :func:`expected_loss_mask`."""
    vocab = sequence.Vocab(cfg)
    out = {}
    for task in sequence.TASK_FORMATS:
        prompt = rng.integers(0, vocab.ordinary_text, 3)
        segs = sequence.format_example(task, sequence.random_parts(task, cfg, rng), prompt=prompt)
        rendered = sequence.render(segs, cfg)
        expected = expected_loss_mask(segs, cfg.codebooks)
        out[task] = int((rendered["loss_mask"] != expected).sum()) if rendered["loss_mask"].shape == expected.shape \
            else int(expected.size)  # fmt: skip
    return out


def _example(task: str, cfg: UniALMConfig, rng: np.random.Generator) -> list[sequence.Segment]:
    prompt = rng.integers(0, sequence.Vocab(cfg).ordinary_text, 3)
    return sequence.format_example(task, sequence.random_parts(task, cfg, rng), prompt=prompt)


def cfg_drop_rate(cfg: UniALMConfig, n: int, p: float, rng: np.random.Generator) -> dict[str, float]:
    """U7(d): the share of ``n`` generation examples whose non-target segments :func:`sequence.cfg_drop` replaced
    by pads, and how many non-generation examples it touched (must be 0)."""
    gen = sorted(sequence.GENERATION_TASKS)
    other = sorted(set(sequence.TASK_FORMATS) - sequence.GENERATION_TASKS)
    dropped = touched = 0
    for i in range(n):
        task = gen[i % len(gen)]
        segs = _example(task, cfg, rng)
        out = sequence.cfg_drop(segs, task, cfg, rng, p)
        dropped += any(not np.array_equal(a.ids, b.ids) for a, b in zip(segs, out, strict=True))
    for i in range(n // 10):
        task = other[i % len(other)]
        segs = _example(task, cfg, rng)
        out = sequence.cfg_drop(segs, task, cfg, rng, 1.0)
        touched += any(not np.array_equal(a.ids, b.ids) for a, b in zip(segs, out, strict=True))
    sigma = math.sqrt(p * (1 - p) / n)
    return {"cfg_drop_rate": dropped / n, "cfg_drop_sigma": sigma, "non_generation_dropped": touched}


def measure_recipe(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """U7 (module docstring): (a) and (b) from one four-stage toy run, (c) and (d) on the host."""
    _no_full(cfg)
    t0 = _clock()
    model_cfg = lm_config(cfg)
    rng = np.random.default_rng(cfg.seed)
    run = stages.train_stages(model_cfg, cfg.u7, key, rng)
    masks = format_mask_mismatches(model_cfg, rng)
    drop = cfg_drop_rate(model_cfg, cfg.u7.cfg_examples, cfg.u7.cfg_p, rng)
    measured = {
        "frozen_changed": int(sum(s["frozen_changed"] for s in run["stages"].values())),
        "trainable_moved_frac": float(min(s["trainable_moved_frac"] for s in run["stages"].values())),
        "insertion_max_diff": float(run["insertion_max_diff"]),
        "format_mask_mismatches": int(sum(masks.values())),
        "cfg_drop_rate": drop["cfg_drop_rate"],
        "non_generation_dropped": drop["non_generation_dropped"],
    }
    return Measurement(
        measured=measured,
        details={"stages": run["stages"], "per_task_mismatches": masks, **drop, **_since(t0)},
    )


# ---------------------------------------------------------------------------------------------------------- U9
def abstract_params(cfg: UniALMConfig, length: int = 8) -> Any:
    """``jax.eval_shape`` of UniALM's init (boxed with logical names; nothing is allocated)."""
    frames = jnp.zeros((1, length, cfg.codebooks + 1), jnp.int32)
    audio = jnp.zeros((1, length), bool)
    return jax.eval_shape(lambda k: UniALM(cfg).init(k, frames, audio), jax.random.key(0))


def _boxed_leaves(tree: Any) -> list[tuple[str, Any]]:
    flat = jax.tree_util.tree_flatten_with_path(tree, is_leaf=lambda x: isinstance(x, nn.Partitioned))[0]
    return [(jax.tree_util.keystr(path), leaf) for path, leaf in flat]


def shape_violations(tree: Any, rules: dict[str, Any], meshes: list[dict[str, int]]) -> dict[str, Any]:
    """U9(b) on an abstract boxed tree: leaves without logical names, names outside ``core.axes``, names with
    no rule in a strategy, and (per strategy and mesh) dimensions their mesh axes do not divide."""
    unnamed, unknown, uncovered, indivisible = [], [], [], []
    for path, leaf in _boxed_leaves(tree):
        if not isinstance(leaf, nn.Partitioned):
            unnamed.append(path)
            continue
        shape, names = leaf.value.shape, leaf.names
        for name in names:
            if name is not None and name not in axes.ALL:
                unknown.append(f"{path}:{name}")
        for strategy, table in rules.items():
            mapping = dict(table)
            for dim, name in zip(shape, names, strict=True):
                if name is None:
                    continue
                if name not in mapping:
                    uncovered.append(f"{strategy}:{path}:{name}")
                    continue
                target = mapping[name]
                mesh_axes = () if target is None else ((target,) if isinstance(target, str) else tuple(target))
                for mesh in meshes:
                    size = math.prod(mesh.get(a, 1) for a in mesh_axes)
                    if dim % size:
                        indivisible.append(f"{strategy}:{mesh}:{path}:{name}={dim}/{size}")
    return {"unnamed": unnamed, "unknown": unknown, "uncovered": uncovered, "indivisible": indivisible}


def leaf_count(tree: Any) -> int:
    return sum(int(np.prod(x.shape)) for x in jax.tree.leaves(nn.meta.unbox(tree)))


def measure_scale_shapes(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """U9 (module docstring): (a) and (b) abstractly, (c) in an 8-device subprocess."""
    _no_full(cfg)
    del key
    t0 = _clock()
    paper = UniALMConfig.paper()
    second = UniALMConfig.paper(dim=2048, num_heads=16, num_kv_heads=8, mlp_dim=5632, depth_dim=1024, depth_heads=16)
    counts = {}
    for name, c in (("paper", paper), ("second", second)):
        counts[name] = {"closed_form": parameter_count(c)["total"], "leaves": leaf_count(abstract_params(c))}
    count_diff = max(abs(v["closed_form"] - v["leaves"]) for v in counts.values())
    rules = {name: [tuple(r) for r in table] for name, table in cfg.u9.rules.items()}
    meshes = [dict(m) for m in cfg.u9.meshes]
    viol = shape_violations(abstract_params(paper), rules, meshes)
    abstract_s = _since(t0)
    t1 = _clock()
    step = run_with_devices("jaxpapers.unialm.sharded:compare_steps", num_devices=cfg.u9.num_devices,
                            kwargs={"preset": cfg.preset}, timeout_s=cfg.u9.timeout_s)  # fmt: skip
    measured = {
        "count_diff": int(count_diff),
        "paper_total": int(counts["paper"]["leaves"]),
        "violations": int(sum(len(v) for v in viol.values())),
        "loss_rel": step["loss_rel"],
        "grad_rel": step["grad_rel"],
        "param_rel": step["param_rel"],
        "loss_finite": float(np.isfinite(step["loss"])),
    }
    return Measurement(
        measured=measured,
        details={"counts": counts, "violations": {k: v[:20] for k, v in viol.items()}, "step": step,
                 "abstract": abstract_s, "sharded_step": _since(t1)},  # fmt: skip
    )


__all__ = [
    "abstract_params",
    "cfg_drop_rate",
    "expected_loss_mask",
    "format_mask_mismatches",
    "leaf_count",
    "lm_config",
    "measure_recipe",
    "measure_scale_shapes",
    "measure_specialization",
    "randomize_experts",
    "shape_violations",
    "specialization_checks",
]
