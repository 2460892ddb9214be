"""Training of :class:`~jaxpapers.vmr_prompts.adapters.tiny_vlm.TinyVLMNet` on SynthVMR (spec §TinyVLM; full preset).

Every training example is one SynthVMR video of ``train_seed`` (disjoint from the study's seeds 0–4), made on the
fly and keyed by its index (:class:`TrainingClips`, a random-access source the shared grain pipeline shuffles and
batches). A fraction ``verify_fraction`` are Yes/No examples: the `zoom` verifier's view of the ground-truth window
(label Yes) or of a window overlapping it by IoU < 0.3 (label No), exactly what the pipeline's verifier shows. The rest
are grounding examples (targets: the first and last frame of the ground truth) whose frames carry a prompt's overlay
drawn from the pixel tools' true outputs with probability ``overlay_correct``, drawn from scrambled outputs (random
labels) with probability ``overlay_random``, and no overlay otherwise, so that the model learns to use marks.

:func:`train_tinyvlm` runs the shared trainer (``core.train.train_model``: AdamW, orbax checkpoints in ``workdir``,
automatic resume with the data position); calling it again on a finished ``workdir`` restores the weights without
training. The pipeline never imports this module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxpapers.core.checks import check_range
from jaxpapers.core.data.pipeline import train_batches
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import FitResult, LoopConfig, OptimConfig, make_optimizer, train_model
from jaxpapers.vmr_prompts.adapters.tiny_vlm import TinyVLM, TinyVLMNet, tokenize
from jaxpapers.vmr_prompts.config import SynthConfig, ToolConfig
from jaxpapers.vmr_prompts.keys import rng as keyed_rng
from jaxpapers.vmr_prompts.metrics import iou
from jaxpapers.vmr_prompts.pipeline import VMRPromptPipeline
from jaxpapers.vmr_prompts.studies import scrambled_tools
from jaxpapers.vmr_prompts.synth.generator import generate_video
from jaxpapers.vmr_prompts.verify import YesNoVerifier, frame_span

OVERLAYS: tuple[str, ...] = ("none", "es", "od", "km", "es_scr", "od_scr", "km_scr", "verify")
"""``overlay`` codes of a training example (its index in this tuple)."""
YES_LABEL, NO_LABEL = 0, 1


@dataclasses.dataclass(frozen=True)
class TinyVLMTrainConfig:
    """The ``tinyvlm`` group of the full preset: the network, the training examples and the training run."""

    d_model: int = 128
    layers: int = 2
    heads: int = 4
    max_frames: int = 64
    train_clips: int = 20_000
    train_seed: int = 100
    steps: int = 1_250
    batch_size: int = 32
    learning_rate: float = 1e-3
    overlay_correct: float = 0.5
    overlay_random: float = 0.1
    verify_fraction: float = 0.5
    log_every: int = 50
    ckpt_every: int = 250

    def __post_init__(self):
        check_range("tinyvlm.train_clips", self.train_clips, 1)
        check_range("tinyvlm.steps", self.steps, 1)
        check_range("tinyvlm.batch_size", self.batch_size, 1)
        check_range("tinyvlm.overlay_correct", self.overlay_correct, 0.0, 1.0)
        check_range("tinyvlm.overlay_random", self.overlay_random, 0.0, 1.0 - self.overlay_correct)
        check_range("tinyvlm.verify_fraction", self.verify_fraction, 0.0, 1.0)

    def identity(self) -> dict:
        """The fields a checkpoint must match (all but the run's length and cadence, so a run can be extended)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in ("steps", "log_every", "ckpt_every")}

    def net(self) -> TinyVLMNet:
        return TinyVLMNet(d_model=self.d_model, layers=self.layers, heads=self.heads, max_frames=self.max_frames)


def _negative_window(gt: tuple[float, float], duration: float, r: np.random.Generator) -> tuple[float, float] | None:
    """A window of the ground truth's length (whole seconds) with IoU < 0.3 against it, or None if none fits."""
    length = gt[1] - gt[0]
    starts = [s for s in np.arange(0.0, duration - length + 1e-9, 1.0) if iou((s, s + length), gt) < 0.3]
    if not starts:
        return None
    s = float(starts[r.integers(len(starts))])
    return s, s + length


class TrainingClips(Sequence):
    """Random-access training examples; item i is a dict of fixed-shape arrays (frames padded to ``max_frames``):
    ``frames`` uint8 [M, H, W, 3], ``frame_mask`` bool [M], ``tokens`` int32 [8], ``start``/``end``/``label`` int32,
    ``span_weight``/``yn_weight`` float32 (which heads the example trains) and ``overlay`` (index in :data:`OVERLAYS`).
    Item i depends only on (config, i)."""

    def __init__(self, cfg: TinyVLMTrainConfig, synth: SynthConfig | None = None, tools: ToolConfig | None = None):
        self.cfg, self.synth = cfg, synth or SynthConfig()
        if self.synth.max_frames > cfg.max_frames:
            raise ConfigError(f"synth.max_frames={self.synth.max_frames} exceeds tinyvlm.max_frames={cfg.max_frames}")
        self.pipe = VMRPromptPipeline(model=None, tools=tools)
        self.verifier = YesNoVerifier("zoom")

    def __len__(self) -> int:
        return self.cfg.train_clips

    def __getitem__(self, i: int) -> dict[str, np.ndarray]:  # type: ignore[override]
        if not 0 <= i < len(self):
            raise IndexError(f"training clip {i} out of range [0, {len(self)})")
        c = self.cfg
        video, (query, *_), _ = generate_video(c.train_seed, int(i), self.synth)
        r = keyed_rng("tinyvlm-train", c.train_seed, int(i))
        gt = query.gt_windows[0]
        start = end = label = 0
        span_w = yn_w = 0.0
        if r.random() < c.verify_fraction:
            negative = _negative_window(gt, video.duration, r) if r.random() < 0.5 else None
            frames, _ = self.verifier.inputs(video, query.text, negative or gt)
            label, yn_w, overlay = (NO_LABEL if negative else YES_LABEL), 1.0, "verify"
        else:
            u, name = r.random(), ("es", "od", "km")[r.integers(3)]
            overlay = "none"
            if u < c.overlay_correct + c.overlay_random:
                tools = self.pipe.tool_outputs(video, query)
                if u >= c.overlay_correct:
                    tools, overlay = scrambled_tools(tools, video.frames, r), name + "_scr"
                else:
                    overlay = name
                frames = self.pipe.render(video, name, tools)
            else:
                frames = video.frames
            a, b = frame_span(gt, video.fps, video.num_frames)
            start, end, span_w = a, b - 1, 1.0
        m = len(frames)
        padded = np.zeros((c.max_frames, *frames.shape[1:]), np.uint8)
        padded[:m] = frames
        return {"frames": padded, "frame_mask": np.arange(c.max_frames) < m, "tokens": tokenize(query.text),
                "start": np.int32(start), "end": np.int32(end), "label": np.int32(label),
                "span_weight": np.float32(span_w), "yn_weight": np.float32(yn_w),
                "overlay": np.int32(OVERLAYS.index(overlay))}


def _weighted_ce(logits: jax.Array, target: jax.Array, weight: jax.Array) -> jax.Array:
    """Σ w·CE(logits, target) / max(Σ w, 1): the mean cross-entropy over the examples that train this head."""
    ce = -jnp.take_along_axis(jax.nn.log_softmax(logits), target[:, None], axis=1)[:, 0]
    return (weight * ce).sum() / jnp.maximum(weight.sum(), 1.0)


def make_loss(net: TinyVLMNet):
    """``loss_fn(params, batch, key, *, train) -> (loss, aux)`` for ``core.train``: the start, end and Yes/No
    cross-entropies, each averaged over the examples that train that head, summed."""

    def loss_fn(params, batch, key, *, train):
        del key, train
        frames = batch["frames"].astype(jnp.float32) / 255.0
        s, e, yn = net.apply({"params": params}, frames, batch["tokens"], batch["frame_mask"])
        span_w, yn_w = batch["span_weight"], batch["yn_weight"]
        start_ce = _weighted_ce(s, batch["start"], span_w)
        end_ce = _weighted_ce(e, batch["end"], span_w)
        yn_ce = _weighted_ce(yn, batch["label"], yn_w)
        yn_acc = (yn_w * (yn.argmax(-1) == batch["label"])).sum() / jnp.maximum(yn_w.sum(), 1.0)
        return start_ce + end_ce + yn_ce, {"start_ce": start_ce, "end_ce": end_ce, "yn_ce": yn_ce, "yn_acc": yn_acc}

    return loss_fn


def train_tinyvlm(cfg: TinyVLMTrainConfig, workdir: str | Path | None, *, synth: SynthConfig | None = None,
                  tools: ToolConfig | None = None, progress: bool = True) -> tuple[TinyVLM, FitResult]:
    """Trains TinyVLM (or restores it from a finished ``workdir``) and wraps it for the pipeline.

    ``workdir`` (the full preset: ``~/.cache/jaxpapers/vmr_tinyvlm``) holds the orbax checkpoints and
    ``metrics.jsonl``; an interrupted run resumes there with the same batches."""
    net = cfg.net()
    source = TrainingClips(cfg, synth, tools)
    example = jax.tree.map(lambda x: jnp.asarray(x)[None], source[0])
    init = lambda k: net.init(k, example["frames"].astype(jnp.float32), example["tokens"],  # noqa: E731
                              example["frame_mask"])["params"]
    tx = make_optimizer(OptimConfig(lr=cfg.learning_rate), cfg.steps)
    loop = LoopConfig(steps=cfg.steps, batch_size=cfg.batch_size, log_every=cfg.log_every, ckpt_every=cfg.ckpt_every)
    result = train_model(init, make_loss(net), tx, train_batches(source, cfg.batch_size, seed=cfg.train_seed),
                         loop=loop, key=jax.random.key(cfg.train_seed),
                         workdir=None if workdir is None else Path(workdir).expanduser(),
                         model_config=cfg.identity(), progress=progress, description="TinyVLM")
    return TinyVLM(net, result.state.params), result
