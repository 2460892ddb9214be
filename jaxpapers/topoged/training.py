"""Teacher-forced training of the decoder's trunk and four heads (spec, "Training").

For each training target G_s: nodes V_s (old first), features from the window before s, bins from
:func:`~jaxpapers.topoged.decoder.assign_caps` with the true Φ(G_s); in phase z the trunk sees the true edges of
the earlier phases; positives = true edges of type z, negatives = ``neg_ratio`` pairs per positive from the
type's candidate space (oo-bank: bank pairs that are not edges; oo-nobank: old pairs outside the bank; on:
old × new; nn: new × new); loss Σ_z BCE_z. One snapshot per step, Adam (``core.train.make_optimizer``),
``epochs × targets`` steps in one ``lax.scan``, vmapped over the seeds (``core.train.make_seed_trainer``).
Early stopping on validation ROC-AUC (spec: patience 10, at most ``epochs``): the scan keeps the parameters
after every epoch (one epoch = as many steps as training targets, sampled with replacement), one vmapped
forward pass scores the validation targets' labelled pairs (the same construction as the training pairs) under
every epoch's parameters, and the parameters of the best epoch before ``patience`` epochs without improvement
are kept (:func:`early_stop_epoch`).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxpapers.core.sim import fast_compile_options
from jaxpapers.core.train import OptimConfig, make_optimizer, make_seed_trainer
from jaxpapers.topoged.config import DecoderTrainConfig, ModelConfig
from jaxpapers.topoged.data.events import Snapshot
from jaxpapers.topoged.decoder import Decoder, assign_caps
from jaxpapers.topoged.descriptor import phi
from jaxpapers.topoged.edge_types import pair_keys
from jaxpapers.topoged.memory import node_features, window_stats


def _bucket(n: int, step: int = 64) -> int:
    return max(step, int(np.ceil(n / step)) * step)


def _negatives(z, old, new, pos_keys, bank_keys, count, rng):
    if count == 0:
        return np.zeros((0, 2), np.int64)
    if z == 0 and len(bank_keys):
        cand = bank_keys[~np.isin(bank_keys, pos_keys)]
        if len(cand):
            k = cand[rng.integers(len(cand), size=count)]
            return np.stack([k >> 31, k & ((1 << 31) - 1)], 1)
    a, b = (old, old) if z <= 1 else (old, new) if z == 2 else (new, new)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((0, 2), np.int64)
    return np.stack([a[rng.integers(len(a), size=count)], b[rng.integers(len(b), size=count)]], 1)


def snapshot_example(snaps: list[Snapshot], is_new_all, types_all, s: int, thresholds: np.ndarray,
                     m: ModelConfig, neg_ratio: int, rng: np.random.Generator) -> dict:
    """The host-side training example of target s (unpadded): features, phase graphs and labelled pairs."""
    snap = snaps[s]
    stats = window_stats(snaps[max(0, s - m.k) : s])
    is_new = is_new_all[s]
    order = np.concatenate([np.nonzero(~is_new)[0], np.nonzero(is_new)[0]])  # old first
    inv = np.empty_like(order)
    inv[order] = np.arange(len(order))
    ids = snap.node_ids[order]
    new_mask = is_new[order]
    pos = np.searchsorted(stats.node_ids, ids[~new_mask]) if len(stats.node_ids) else np.zeros(0, np.int64)
    pos = np.clip(pos, 0, max(len(stats.node_ids) - 1, 0))
    hit = (stats.node_ids[pos] == ids[~new_mask]) if len(stats.node_ids) else np.zeros(0, bool)
    last_deg = np.where(hit, stats.last_degree[pos] if len(stats.node_ids) else 0.0, 0.0)
    _, bins = assign_caps(last_deg, int(new_mask.sum()), phi(snap, thresholds)[0::2], thresholds, rng)
    x = node_features(stats, ids, new_mask, bins, m.n_levels, m.k, m.mem_lambda)
    e = np.stack([inv[snap.senders], inv[snap.receivers]], 1)
    ty = types_all[s]
    old, new = np.nonzero(~new_mask)[0], np.nonzero(new_mask)[0]
    lo = max(0, s - m.k)
    bank = np.unique(np.concatenate([pair_keys(w.edges_global()) for w in snaps[lo:s]] or [np.zeros(0, np.int64)]))
    local = {v: i for i, v in enumerate(ids.tolist())}
    bk = [(local[a], local[b]) for a, b in ((k >> 31, k & ((1 << 31) - 1)) for k in bank.tolist())
          if a in local and b in local]
    bank_local = pair_keys(np.array(bk, np.int64).reshape(-1, 2))
    phases, pairs, labels = [], [], []
    for z in range(4):
        phases.append(e[ty < z])
        p = e[ty == z]
        neg = _negatives(z, old, new, pair_keys(e), bank_local, neg_ratio * len(p), rng)
        pairs.append(np.concatenate([p, neg]).astype(np.int64))
        labels.append(np.concatenate([np.ones(len(p)), np.zeros(len(neg))]).astype(np.float32))
    return dict(x=x, is_new=new_mask, bins=bins, phases=phases, pairs=pairs, labels=labels)


def stack_examples(examples: list[dict], n_pad: int, e_pad: int, p_pad: int) -> dict:
    """Pads and stacks examples into arrays with a leading example axis."""
    t, f = len(examples), examples[0]["x"].shape[1]
    out = dict(
        x=np.zeros((t, n_pad, f), np.float32), node_mask=np.zeros((t, n_pad), bool), is_new=np.zeros((t, n_pad), bool),
        bins=np.zeros((t, n_pad), np.int32), senders=np.zeros((t, 4, e_pad), np.int32),
        receivers=np.zeros((t, 4, e_pad), np.int32), edge_mask=np.zeros((t, 4, e_pad), bool),
        pairs=np.zeros((t, 4, p_pad, 2), np.int32), labels=np.zeros((t, 4, p_pad), np.float32),
        pair_mask=np.zeros((t, 4, p_pad), bool),
    )
    for i, ex in enumerate(examples):
        n = len(ex["x"])
        out["x"][i, :n], out["node_mask"][i, :n] = ex["x"], True
        out["is_new"][i, :n], out["bins"][i, :n] = ex["is_new"], ex["bins"]
        for z in range(4):
            ph = ex["phases"][z]
            d = np.concatenate([ph, ph[:, ::-1]])
            out["senders"][i, z, : len(d)], out["receivers"][i, z, : len(d)] = d[:, 0], d[:, 1]
            out["edge_mask"][i, z, : len(d)] = True
            p = ex["pairs"][z]
            out["pairs"][i, z, : len(p)], out["labels"][i, z, : len(p)] = p, ex["labels"][z]
            out["pair_mask"][i, z, : len(p)] = True
    return out


def pad_sizes(examples: list[dict]) -> tuple[int, int, int]:
    n = max(len(ex["x"]) for ex in examples)
    e = max(2 * len(ph) for ex in examples for ph in ex["phases"])
    p = max(len(pp) for ex in examples for pp in ex["pairs"])
    return _bucket(n), _bucket(max(e, 1)), _bucket(max(p, 1))


def _inputs(b: dict) -> tuple:
    """The Decoder's positional inputs from one padded example."""
    return (b["x"], b["senders"], b["receivers"], b["node_mask"], b["edge_mask"], b["is_new"], b["bins"], b["pairs"])


def make_loss_fn(model: Decoder):
    """``loss_fn(params, batch, key, *, train)``: Σ_z masked-mean BCE of the four heads on one example."""

    def loss_fn(params, batch, key, *, train):
        logits = model.apply({"params": params}, *_inputs(batch), train=train, rngs={"dropout": key})
        bce = optax.sigmoid_binary_cross_entropy(logits, batch["labels"])
        w = batch["pair_mask"].astype(jnp.float32)
        per = (bce * w).sum(-1) / jnp.maximum(w.sum(-1), 1.0)
        loss = per.sum()
        return loss, {"bce_per_type": per}

    return loss_fn


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC-AUC by the rank formula (ties get the mean rank); NaN without both classes."""
    scores, labels = np.asarray(scores, np.float64), np.asarray(labels, bool)
    n_pos, n_neg = int(labels.sum()), int((~labels).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    sorted_s = scores[order]
    _, first, counts = np.unique(sorted_s, return_index=True, return_counts=True)
    mean_rank = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(mean_rank, counts)
    return float((ranks[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def early_stop_epoch(aucs: np.ndarray, patience: int) -> int:
    """0-based epoch kept by early stopping: the best AUC seen before ``patience`` epochs pass without a strict
    improvement (training stops there); NaN AUCs never improve."""
    best, best_e = -np.inf, 0
    for e, a in enumerate(np.asarray(aucs, np.float64)):
        if a > best:
            best, best_e = a, e
        elif e - best_e >= patience:
            break
    return best_e


@functools.cache
def _val_logits_fn(model: Decoder):
    def one(params, ex):
        return model.apply({"params": params}, *_inputs(ex), train=False)

    # [seed] x [epoch] params, [seed] x [example] data -> logits [seed, epoch, example, 4, P]
    per_epoch = jax.vmap(jax.vmap(one, in_axes=(None, 0)), in_axes=(0, None))
    return jax.jit(jax.vmap(per_epoch, in_axes=(0, 0)), compiler_options=fast_compile_options(1))


def validation_aucs(model: Decoder, epoch_params: dict, val: dict) -> np.ndarray:
    """float64[seed, epoch]: ROC-AUC of the four heads' logits on the validation targets' labelled pairs
    (pooled over types and targets) under each epoch's parameters."""
    logits = np.asarray(_val_logits_fn(model)(epoch_params, jax.tree.map(jnp.asarray, val)))
    mask, labels = np.asarray(val["pair_mask"]), np.asarray(val["labels"])
    return np.array([[roc_auc(logits[i, e][mask[i]], labels[i][mask[i]] > 0.5) for e in range(logits.shape[1])]
                     for i in range(logits.shape[0])])


def train_decoder(data: dict, m: ModelConfig, tc: DecoderTrainConfig, keys: jax.Array,
                  val: dict | None = None, info: dict | None = None) -> tuple[dict, np.ndarray]:
    """Trains one decoder per seed: ``data`` leaves carry [seed, example, ...]; returns (params [seed, ...],
    losses [seed, steps]). With ``val`` (padded validation examples [seed, example, ...]) and
    ``tc.early_stop``, the parameters are those of the early-stopping epoch; ``info`` (a dict) receives the
    validation AUC per epoch and the kept epoch (1-based) per seed."""
    model = Decoder(m.hidden, m.dropout, m.n_levels)
    n_ex = data["x"].shape[1]
    steps = tc.epochs * n_ex
    stop = val is not None and tc.early_stop

    def init(key, d):
        ex = jax.tree.map(lambda a: a[0], d)
        return model.init(key, *_inputs(ex))["params"]

    def sample(key, d):
        i = jax.random.randint(key, (), 0, n_ex)
        return jax.tree.map(lambda a: a[i], d)

    tx = make_optimizer(OptimConfig(lr=tc.lr, weight_decay=tc.weight_decay), steps)
    run = make_seed_trainer(init, make_loss_fn(model), tx, sample, steps=steps, snapshots=tc.epochs if stop else 0,
                            compiler_options=fast_compile_options(1))
    res = run(keys, jax.tree.map(jnp.asarray, data))
    if not stop:
        return jax.tree.map(np.asarray, res.params), np.asarray(res.losses)
    aucs = validation_aucs(model, res.snapshots, val)
    kept = np.array([early_stop_epoch(a, tc.patience) for a in aucs])
    params = jax.tree.map(lambda a: np.asarray(a)[np.arange(len(kept)), kept], res.snapshots)
    if info is not None:
        info["val_auc_per_epoch"] = aucs.round(4).tolist()
        info["kept_epoch"] = (kept + 1).tolist()
    return params, np.asarray(res.losses)
