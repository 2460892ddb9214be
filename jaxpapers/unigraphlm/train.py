"""The trained stages of UniGraphLM (spec, Frozen LM / Stage A / supervised baseline / Stage B / Inference).

Every trainer is one ``lax.scan`` over its steps inside one jitted program, with its data passed as jit
arguments (never closed over), built once per configuration (``functools.cache``) so every data seed and every
claim of a ``verify`` run reuses the compiled program:

* :func:`pretrain_lm`: next-token cross-entropy on the generated corpus (AdamW, warm-up + cosine), then frozen.
* :func:`pretrain_graph_text`: Stage A, ``L_A = L_clip + λ·L_anchor`` (symmetric InfoNCE with multi-positive
  targets for identical texts, learnable temperature clamped to [0.01, 1]; token-space anchor
  ``1 − cos(A z_0, mean E_tok[content(t)])``); batches mix (domain, level) buckets with probabilities
  ``∝ n_b^{0.5}``, and with probability 0.5 a batch comes from one bucket. The text tower reads the *frozen*
  LM (mean of its last hidden states over ``t_i``), so those features are computed once.
* :func:`train_supervised_encoder`: the task-specific baseline, the same ``f_θ`` with one linear head per source
  (domain, task) bucket (cross-entropy; a 2-way softmax for the yes/no links, equivalent to BCE on the logit gap).
* :func:`untrained_encoder`: the random frozen encoder.
* :func:`align_tune`: Stage B, only the projector φ is trained (LM and encoder frozen; the encoder outputs ``z``
  are computed once); every run of a study (encoder × sampler × projector seed) is one row of one vmapped
  program: the sampler is chosen per row by ``lax.switch`` among ``curriculum | fixed | random_difficulty |
  anti``, all pure functions ``(state, step, key)``; every ``refresh_every`` steps ``refresh_size`` pool samples
  are re-scored (answer NLL and κ) on the current projector. The samples served per bucket are counted.
* :func:`evaluate`: closed-set scoring (argmax of ``log p(c | prefix)`` over the candidates), per sample.
* :func:`retrieval_r1`: graph→text R@1 among distinct texts with the Stage-A towers.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float, Int

from jaxpapers.core import sim
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import make_optimizer
from jaxpapers.core.train.optim import OptimConfig
from jaxpapers.core.train.scan import scan_fit
from jaxpapers.core.train.state import TrainState
from jaxpapers.core.train.step import make_train_step
from jaxpapers.unigraphlm.config import SAMPLERS, AlignConfig, EncoderConfig, LMConfig, SupervisedConfig
from jaxpapers.unigraphlm.curriculum import kappa_score, make_sampler
from jaxpapers.unigraphlm.data.batching import FIELDS, to_graph_batch
from jaxpapers.unigraphlm.data.vocab import PAD
from jaxpapers.unigraphlm.losses import anchor_loss, answer_nll, clip_loss
from jaxpapers.unigraphlm.models.glm import UniGraphLM
from jaxpapers.unigraphlm.models.gnn import GraphEncoder
from jaxpapers.unigraphlm.models.lm import TinyDecoderLM
from jaxpapers.unigraphlm.models.projector import GraphTokenProjector

N_SPECIALS = 5  # <pad> <bos> <eos> <unk> <graph>: not content words of a Stage-A text
MAX_CLASSES = 7  # the largest source label set (C1's 7 topics)
EVAL_CHUNK = 256
Readouts = Float[Array, "E N 3 G"] | Float[np.ndarray, "E N 3 G"]  # encoder outputs, leading run/encoder axis


# ---------------------------------------------------------------------------------------------------- frozen LM


def lm_loss(lm: TinyDecoderLM, params, tokens: Int[Array, "B L"]):
    """Mean next-token cross-entropy over the non-pad targets."""
    logits = lm.apply(params, tokens, method=TinyDecoderLM.logits_of_tokens)[:, :-1]
    targets = tokens[:, 1:]
    lp = jnp.take_along_axis(jax.nn.log_softmax(logits, -1), targets[..., None], -1)[..., 0]
    m = (targets != PAD).astype(lp.dtype)
    return -(lp * m).sum() / jnp.maximum(m.sum(), 1.0)


@functools.cache
def _lm_program(cfg: LMConfig, vocab_size: int, context: int):
    lm = TinyDecoderLM(vocab_size, cfg.d_lm, cfg.layers, cfg.heads, context)
    tx = make_optimizer(OptimConfig(lr=cfg.lr, schedule="warmup_cosine", warmup_frac=cfg.warmup / cfg.steps,
                                    weight_decay=cfg.weight_decay), cfg.steps)

    def init(key, data):
        return lm.init(key, jnp.zeros((1, context, cfg.d_lm)), jnp.ones((1, context), bool))

    def loss(params, batch, key, *, train):
        return lm_loss(lm, params, batch["tokens"]), {}

    def sample(key, data):
        return {"tokens": data["tokens"][jax.random.randint(key, (cfg.batch,), 0, data["tokens"].shape[0])]}

    run = jax.jit(lambda key, data: scan_fit(key, data, init_params=init, loss_fn=loss, tx=tx,
                                             sample_batch=sample, steps=cfg.steps))
    return lm, run


def pretrain_lm(cfg: LMConfig, corpus: Int[np.ndarray, "n L"], vocab_size: int, key: jax.Array):
    """``(lm, params, losses [steps])``: the decoder LM trained by next-token CE on ``corpus``, to be frozen."""
    lm, run = _lm_program(cfg, int(vocab_size), int(corpus.shape[1]))
    res = run(key, {"tokens": jnp.asarray(corpus, jnp.int32)})
    return lm, res.params, np.asarray(res.losses)


def embedding_table(lm_params) -> Float[Array, "V D"]:
    return lm_params["params"]["embed"]["embedding"]


@functools.cache
def _text_program(lm: TinyDecoderLM):
    @jax.jit
    def run(params, tokens):
        h = lm.apply(params, lm.apply(params, tokens, method=TinyDecoderLM.embed), tokens != PAD,
                     method=TinyDecoderLM.hidden)
        m = (tokens != PAD).astype(h.dtype)[..., None]
        feat = (h * m).sum(1) / jnp.maximum(m.sum(1), 1.0)
        content = (tokens >= N_SPECIALS).astype(h.dtype)[..., None]
        e = embedding_table(params)[tokens]
        anchor = (e * content).sum(1) / jnp.maximum(content.sum(1), 1.0)
        return feat, anchor

    return run


def text_features(lm: TinyDecoderLM, lm_params, tokens: Int[np.ndarray, "S L"]):
    """Frozen-LM text features of Stage-A texts: (mean last hidden state [S, d_lm], anchor target
    ``mean_{w ∈ content(t)} E_tok[w]`` [S, d_lm])."""
    feat, anchor = _text_program(lm)(lm_params, jnp.asarray(tokens, jnp.int32))
    return feat, anchor


# ------------------------------------------------------------------------------------------------ the encoder


def _graph_of(fields: dict):
    return to_graph_batch(fields)


def _encoder(cfg: EncoderConfig) -> GraphEncoder:
    return GraphEncoder(layer=cfg.layer, d_g=cfg.d_g, layers=cfg.layers)


def init_encoder(cfg: EncoderConfig, fields: dict, key: jax.Array):
    """Parameters of ``f_θ`` initialised on one sample of ``fields`` (leading sample axis)."""
    one = {k: jnp.asarray(v[0]) for k, v in fields.items()}
    return _encoder(cfg).init(key, _graph_of(one), one["role"], one["noi"], one["ring"])


def encode_batch(enc: GraphEncoder, theta, fields: dict) -> Float[Array, "B 3 G"]:
    """``z`` of every sample of ``fields`` (vmapped over the leading axis)."""
    return jax.vmap(lambda f: enc.apply(theta, _graph_of(f), f["role"], f["noi"], f["ring"]))(fields)


@functools.cache
def _encode_program(enc: GraphEncoder):
    return jax.jit(lambda theta, fields: sim.map_chunks(lambda f: encode_batch(enc, theta, f), fields, EVAL_CHUNK))


def encode(cfg: EncoderConfig, theta, fields: dict) -> Float[Array, "S 3 G"]:
    """The frozen encoder's readouts for a whole pool (one compiled program per pool shape)."""
    return _encode_program(_encoder(cfg))(theta, {k: jnp.asarray(fields[k]) for k in FIELDS})


def untrained_encoder(cfg: EncoderConfig, fields: dict, key: jax.Array):
    """The random (untrained) frozen encoder of the U1/U6 baselines."""
    return init_encoder(cfg, fields, key)


# -------------------------------------------------------------------------------------------------- Stage A


class Towers(nn.Module):
    """Stage-A heads: graph tower (2-layer MLP on flatten z), text tower (linear W_t on the frozen LM's features),
    the anchor map A (z_0 -> token space) and the log temperature (init log 0.07)."""

    d_s: int
    d_lm: int
    temperature: float = 0.07

    @nn.compact
    def __call__(self, z: Float[Array, "B 3 G"], h_text: Float[Array, "B D"]):
        x = z.reshape(z.shape[0], -1)
        e_g = nn.Dense(self.d_s, name="g_out")(nn.gelu(nn.Dense(self.d_s, name="g_hidden")(x)))
        e_t = nn.Dense(self.d_s, use_bias=False, name="w_t")(h_text)
        anchor = nn.Dense(self.d_lm, use_bias=False, name="anchor")(z[:, 0])
        log_temp = self.param("log_temp", lambda _: jnp.asarray(math.log(self.temperature), jnp.float32))
        unit = lambda v: v / jnp.maximum(jnp.linalg.norm(v, axis=-1, keepdims=True), 1e-8)  # noqa: E731
        return unit(e_g), unit(e_t), anchor, log_temp


def bucket_sampler(buckets: np.ndarray, mix_power: float) -> dict[str, np.ndarray]:
    """Index tables for per-bucket draws: ``order`` (sample ids sorted by bucket), ``starts``, ``counts`` and the
    bucket probabilities ``∝ n_b^{mix_power}``."""
    _, inv, counts = np.unique(buckets, return_inverse=True, return_counts=True)
    order = np.argsort(inv, kind="stable").astype(np.int32)
    starts = (np.cumsum(counts) - counts).astype(np.int32)
    p = counts.astype(np.float64) ** mix_power
    return {"order": order, "starts": starts, "counts": counts.astype(np.int32),
            "logp": np.log(p / p.sum()).astype(np.float32)}


def draw_mixed(key: jax.Array, tables: dict, batch: int, single_prob) -> Int[Array, " B"]:
    """A batch of sample ids: each sample's bucket ∝ n_b^power, or (with ``single_prob``) one bucket for all."""
    k1, k2, k3, k4 = jax.random.split(key, 4)
    own = jax.random.categorical(k1, tables["logp"], shape=(batch,))
    one = jax.random.categorical(k2, tables["logp"])
    b = jnp.where(jax.random.uniform(k3) < single_prob, one, own)
    pick = jnp.floor(jax.random.uniform(k4, (batch,)) * tables["counts"][b]).astype(jnp.int32)
    return tables["order"][tables["starts"][b] + pick]


@functools.cache
def _stage_a_program(cfg: EncoderConfig, d_lm: int):
    enc = _encoder(cfg)
    towers = Towers(cfg.d_s, d_lm, cfg.temperature)
    tx = make_optimizer(OptimConfig(lr=cfg.lr, schedule="cosine", weight_decay=cfg.weight_decay), cfg.steps)

    def init(key, data):
        k1, k2 = jax.random.split(key)
        one = jax.tree.map(lambda a: a[:1], data["fields"])
        theta = enc.init(k1, _graph_of(jax.tree.map(lambda a: a[0], one)), one["role"][0], one["noi"][0],
                         one["ring"][0])
        z = encode_batch(enc, theta, one)
        return {"enc": theta, "towers": towers.init(k2, z, data["h_text"][:1])}

    def sample(key, data):
        idx = draw_mixed(key, data["tables"], cfg.batch, cfg.single_bucket_prob)
        return {"fields": jax.tree.map(lambda a: a[idx], data["fields"]), "h_text": data["h_text"][idx],
                "anchor": data["anchor"][idx], "text_id": data["text_id"][idx]}

    def loss(params, batch, key, *, train):
        z = encode_batch(enc, params["enc"], batch["fields"])
        e_g, e_t, proj, log_temp = towers.apply(params["towers"], z, batch["h_text"])
        same = batch["text_id"][:, None] == batch["text_id"][None, :]
        l_clip = clip_loss(e_g, e_t, log_temp, same)
        l_anchor = anchor_loss(proj, batch["anchor"])
        return l_clip + cfg.anchor_weight * l_anchor, {"clip": l_clip, "anchor": l_anchor}

    run = jax.jit(lambda key, data: scan_fit(key, data, init_params=init, loss_fn=loss, tx=tx,
                                             sample_batch=sample, steps=cfg.steps))
    return enc, towers, run


def stage_a_data(pairs, lm: TinyDecoderLM, lm_params, mix_power: float) -> dict:
    """Everything Stage A reads as jit arguments: padded graphs, frozen-LM text features, anchor targets, text ids
    (identical texts share an id: multi-positive targets) and the bucket tables."""
    h_text, anchor = text_features(lm, lm_params, pairs.tokens)
    _, text_id = np.unique(pairs.extra["text_hash"], return_inverse=True)
    return {"fields": {k: jnp.asarray(pairs.graph[k]) for k in FIELDS}, "h_text": h_text, "anchor": anchor,
            "text_id": jnp.asarray(text_id, jnp.int32),
            "tables": {k: jnp.asarray(v) for k, v in bucket_sampler(pairs.bucket, mix_power).items()}}


def pretrain_graph_text(cfg: EncoderConfig, pairs, lm: TinyDecoderLM, lm_params, key: jax.Array):
    """Stage A: ``(params {"enc", "towers"}, losses [steps])``; ``params["enc"]`` is the frozen ``f_θ`` after."""
    _, _, run = _stage_a_program(cfg, int(lm.d_lm))
    res = run(key, stage_a_data(pairs, lm, lm_params, cfg.mix_power))
    return res.params, np.asarray(res.losses)


# ------------------------------------------------------------------------------------ supervised baseline


@functools.cache
def _supervised_program(cfg: SupervisedConfig, enc_cfg: EncoderConfig, n_buckets: int):
    enc = _encoder(enc_cfg)
    head = nn.Dense(n_buckets * MAX_CLASSES, name="heads")
    tx = make_optimizer(OptimConfig(lr=cfg.lr, schedule="cosine", weight_decay=cfg.weight_decay), cfg.steps)

    def init(key, data):
        k1, k2 = jax.random.split(key)
        one = jax.tree.map(lambda a: a[:1], data["fields"])
        theta = enc.init(k1, _graph_of(jax.tree.map(lambda a: a[0], one)), one["role"][0], one["noi"][0],
                         one["ring"][0])
        z = encode_batch(enc, theta, one)
        return {"enc": theta, "head": head.init(k2, z.reshape(1, -1))}

    def sample(key, data):
        idx = jax.random.randint(key, (cfg.batch,), 0, data["label"].shape[0])
        return {"fields": jax.tree.map(lambda a: a[idx], data["fields"]), "label": data["label"][idx],
                "bucket": data["bucket"][idx], "n_classes": data["n_classes"]}

    def loss(params, batch, key, *, train):
        z = encode_batch(enc, params["enc"], batch["fields"])
        logits = head.apply(params["head"], z.reshape(z.shape[0], -1)).reshape(-1, n_buckets, MAX_CLASSES)
        logits = jnp.take_along_axis(logits, batch["bucket"][:, None, None], 1)[:, 0]
        valid = jnp.arange(MAX_CLASSES)[None] < batch["n_classes"][batch["bucket"]][:, None]
        lp = jax.nn.log_softmax(jnp.where(valid, logits, -1e9), -1)
        ce = -jnp.take_along_axis(lp, batch["label"][:, None], 1)[:, 0]
        acc = (jnp.argmax(jnp.where(valid, logits, -1e9), -1) == batch["label"]).mean()
        return ce.mean(), {"acc": acc}

    run = jax.jit(lambda key, data: scan_fit(key, data, init_params=init, loss_fn=loss, tx=tx,
                                             sample_batch=sample, steps=cfg.steps))
    return run


def train_supervised_encoder(cfg: SupervisedConfig, enc_cfg: EncoderConfig, fields: dict, label: np.ndarray,
                             bucket: np.ndarray, key: jax.Array):
    """The task-specific encoder: ``f_θ`` + one linear head per bucket, CE on the source training labels.
    Returns ``(params {"enc", "head"}, losses [steps])``."""
    bucket = np.asarray(bucket, np.int32)
    label = np.asarray(label, np.int32)
    n_b = int(bucket.max()) + 1
    n_classes = np.array([label[bucket == b].max() + 1 if (bucket == b).any() else 1 for b in range(n_b)], np.int32)
    if n_classes.max() > MAX_CLASSES:
        raise ConfigError(f"a source task has {n_classes.max()} classes, more than {MAX_CLASSES}")
    run = _supervised_program(cfg, enc_cfg, n_b)
    data = {"fields": {k: jnp.asarray(fields[k]) for k in FIELDS}, "label": jnp.asarray(label),
            "bucket": jnp.asarray(bucket), "n_classes": jnp.asarray(n_classes)}
    res = run(key, data)
    return res.params, np.asarray(res.losses)


# -------------------------------------------------------------------------------------------------- Stage B


def median_norm(lm_params):
    """The median row norm of ``E_tok`` (the graph tokens' norm)."""
    return jnp.median(jnp.linalg.norm(embedding_table(lm_params), axis=1))


def make_glm(lm: TinyDecoderLM, lm_params, k_tokens: int) -> UniGraphLM:
    """The GLM with its projector at the median word-embedding norm of the frozen ``E_tok`` (inside a jitted
    program ``lm_params`` may be traced: it is an argument, never a closed-over constant)."""
    return UniGraphLM(lm, lm_params, GraphTokenProjector(k_tokens, lm.d_lm, median_norm(lm_params)))


def per_sample_nll(glm: UniGraphLM, phi, tokens, z, pos, weights=None):
    """``(weighted batch loss, ℓ_i [B])`` on the answer token only (``logits[:, pos]`` predicts the answer)."""
    logits = glm.logits(phi, tokens, z)
    targets = jnp.roll(tokens, -1, axis=1)
    mask = jnp.arange(tokens.shape[1])[None] == pos[:, None]
    return answer_nll(logits, targets, mask, weights)


@dataclasses.dataclass(frozen=True)
class StageBRun:
    """One row of a Stage-B study: which encoder (index into ``z_all``), which sampler, which projector seed."""

    encoder: int
    sampler: str
    seed: int


def _samplers(cfg: AlignConfig, n: int):
    kw = dict(c0=cfg.c0, tc_frac=cfg.tc_frac, beta=cfg.beta, norm=cfg.norm, loss_weight=cfg.loss_weight)
    return [make_sampler(name, n, cfg.batch, cfg.steps, **kw) for name in SAMPLERS]


@functools.cache
def _align_program(cfg: AlignConfig, lm: TinyDecoderLM, n_pool: int, n_buckets: int):
    if cfg.steps % cfg.refresh_every:
        raise ConfigError(f"align.steps={cfg.steps} must be a multiple of align.refresh_every={cfg.refresh_every}")
    samplers = _samplers(cfg, n_pool)
    n_blocks = cfg.steps // cfg.refresh_every
    m = min(cfg.refresh_size, n_pool)
    warm = 0.03
    tx = make_optimizer(OptimConfig(lr=cfg.lr, schedule="warmup_cosine", warmup_frac=warm), cfg.steps)

    def scores(glm, phi, data, idx):
        z = data["z"][idx]
        _, nll = per_sample_nll(glm, phi, data["tokens"][idx], z, data["pos"][idx])
        return nll, kappa_score(glm.graph_tokens(phi, z), embedding_table(glm.lm_params))

    def one(key, kind, z_pool, data, lm_params):
        glm = make_glm(lm, lm_params, cfg.k_tokens)

        def loss(phi, batch, key, *, train):
            val, _ = per_sample_nll(glm, phi, batch["tokens"], batch["z"], batch["pos"], batch["w"])
            return val, {}

        step_fn = make_train_step(loss, tx)
        data = {**data, "z": z_pool}
        k_init, k_phi, k_run = jax.random.split(key, 3)
        phi = glm.projector.init(k_phi, z_pool[:1])
        everything = jnp.arange(n_pool)
        nll0, kap0 = sim.map_chunks(lambda i: scores(glm, phi, data, i), everything, EVAL_CHUNK)
        state = jax.lax.switch(kind, [lambda s=s: s.init(nll0, kap0, data["bucket"], k_init) for s in samplers])
        train = TrainState.create(phi, tx, k_run)

        def step(carry, t):
            train, state, served = carry
            kt = jax.random.fold_in(k_run, t)
            idx, w, state = jax.lax.switch(kind, [lambda s=s: s(state, t, kt) for s in samplers])
            batch = {"tokens": data["tokens"][idx], "z": data["z"][idx], "pos": data["pos"][idx], "w": w}
            train, metrics = step_fn(train, batch)
            served = served + jnp.bincount(data["bucket"][idx], length=n_buckets)
            return (train, state, served), metrics["loss"]

        def block(carry, b):
            train, state, served = carry
            kb = jax.random.fold_in(k_init, b + 1)
            sub = jax.random.permutation(kb, n_pool)[:m]
            nll, kap = scores(glm, train.params, data, sub)
            refreshed = jax.lax.switch(
                kind, [lambda s=s: s.refresh(state, sub, nll, kap, jax.random.fold_in(kb, 1)) for s in samplers])
            state = jax.tree.map(lambda a, r: jnp.where(b > 0, r, a), state, refreshed)
            t = b * cfg.refresh_every + jnp.arange(cfg.refresh_every)
            return jax.lax.scan(step, (train, state, served), t)

        carry = (train, state, jnp.zeros(n_buckets, jnp.int32))
        (train, state, served), losses = jax.lax.scan(block, carry, jnp.arange(n_blocks))
        return train.params, losses.reshape(-1), served, (nll0, state.difficulty)

    @jax.jit
    def run(keys, kinds, enc_idx, z_all, data, lm_params):
        return jax.vmap(lambda k, c, e: one(k, c, z_all[e], data, lm_params))(keys, kinds, enc_idx)

    return run


def align_tune(cfg: AlignConfig, lm: TinyDecoderLM, lm_params, z_all: Readouts, tokens: np.ndarray,
               pos: np.ndarray, bucket: np.ndarray, runs: list[StageBRun], n_buckets: int, key: jax.Array):
    """Stage B for every row of ``runs`` on the training pool (``z_all[e]`` the pool's encoder outputs of encoder
    ``e``), in one vmapped program. Returns ``(phi [R, ...], losses [R, steps], served [R, n_buckets],
    (initial NLL [R, N], final difficulty [R, N]))``."""
    if not runs:
        raise ConfigError("align_tune: runs must list at least one (encoder, sampler, seed)")
    n = int(np.asarray(tokens).shape[0])
    run = _align_program(cfg, lm, n, int(n_buckets))
    keys = jnp.stack([jax.random.fold_in(key, r.seed) for r in runs])
    kinds = jnp.asarray([SAMPLERS.index(r.sampler) for r in runs], jnp.int32)
    enc_idx = jnp.asarray([r.encoder for r in runs], jnp.int32)
    data = {"tokens": jnp.asarray(tokens, jnp.int32), "pos": jnp.asarray(pos, jnp.int32),
            "bucket": jnp.asarray(bucket, jnp.int32)}
    return run(keys, kinds, enc_idx, jnp.asarray(z_all), data, lm_params)


# ------------------------------------------------------------------------------------------------ evaluation


@functools.cache
def _eval_program(lm: TinyDecoderLM, k_tokens: int):
    def one(phi, z, tokens, pos, cands, answer_idx, lm_params):
        glm = make_glm(lm, lm_params, k_tokens)

        def chunk(x):
            s = glm.score_candidates(phi, x["tokens"], x["z"], x["pos"], x["cands"])
            return jnp.argmax(s, -1) == x["answer_idx"]

        return sim.map_chunks(chunk, {"z": z, "tokens": tokens, "pos": pos, "cands": cands,
                                      "answer_idx": answer_idx}, EVAL_CHUNK)

    return jax.jit(jax.vmap(one, in_axes=(0, 0, None, None, None, None, None)))


def evaluate(lm: TinyDecoderLM, lm_params, k_tokens: int, phis, z: Readouts, tokens: np.ndarray, pos: np.ndarray,
             cands: np.ndarray, answer_idx: np.ndarray) -> np.ndarray:
    """Closed-set correctness ``[R, S]`` of each projector ``phis[r]`` (leading run axis) with graph inputs
    ``z[r]``: predict the candidate of highest ``log p(c | prefix)``."""
    out = _eval_program(lm, int(k_tokens))(
        phis, jnp.asarray(z), jnp.asarray(tokens, jnp.int32), jnp.asarray(pos, jnp.int32),
        jnp.asarray(cands, jnp.int32), jnp.asarray(answer_idx, jnp.int32), lm_params)
    return np.asarray(out)


# ------------------------------------------------------------------------------------------------- retrieval


def distinct_candidates(text_hash: np.ndarray, ids: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` sample indices (of ``ids``) whose texts are pairwise distinct (refuses when fewer exist)."""
    order = rng.permutation(ids)
    _, first = np.unique(text_hash[order], return_index=True)
    distinct = order[np.sort(first)]
    if len(distinct) < k:
        raise ConfigError(f"only {len(distinct)} distinct texts, fewer than study.retrieval_candidates={k}")
    return distinct[:k]


@functools.cache
def _retrieval_program(cfg: EncoderConfig, d_lm: int):
    enc = _encoder(cfg)
    towers = Towers(cfg.d_s, d_lm, cfg.temperature)

    @jax.jit
    def run(params, fields, h_text):
        z = encode_batch(enc, params["enc"], fields)
        e_g, e_t, _, _ = towers.apply(params["towers"], z, h_text)
        s = e_g @ e_t.T
        return (jnp.argmax(s, -1) == jnp.arange(s.shape[0])).mean()

    return run


def init_stage_a_params(cfg: EncoderConfig, d_lm: int, fields: dict, h_text, key: jax.Array):
    """Untrained Stage-A parameters (encoder and towers) for the retrieval baseline."""
    enc = _encoder(cfg)
    k1, k2 = jax.random.split(key)
    theta = init_encoder(cfg, fields, k1)
    z = encode_batch(enc, theta, {k: jnp.asarray(fields[k][:1]) for k in FIELDS})
    return {"enc": theta, "towers": Towers(cfg.d_s, d_lm, cfg.temperature).init(k2, z, jnp.asarray(h_text[:1]))}


def retrieval_r1(cfg: EncoderConfig, d_lm: int, params, fields: dict, h_text) -> float:
    """Graph→text R@1: for each graph, is its own text the most similar of the candidates' texts?"""
    run = _retrieval_program(cfg, int(d_lm))
    return float(run(params, {k: jnp.asarray(fields[k]) for k in FIELDS}, jnp.asarray(h_text)))


def stack_trees(trees: list[Any]):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *trees)
