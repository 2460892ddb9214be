"""Early stopping of the decoder on validation ROC-AUC: the rank AUC against brute-force pair counting, the
patience rule against a hand walk, and the kept parameters against the per-epoch snapshots of the scan."""

import itertools

import jax
import numpy as np

from jaxpapers.topoged.config import DecoderTrainConfig, ModelConfig, PaChurnConfig
from jaxpapers.topoged.data.events import to_snapshots
from jaxpapers.topoged.data.synthetic import pa_churn
from jaxpapers.topoged.decoder import Decoder
from jaxpapers.topoged.pipeline import TopoGED
from jaxpapers.topoged.training import early_stop_epoch, pad_sizes, roc_auc, stack_examples, validation_aucs


def brute_auc(s, y):
    pos, neg = s[y], s[~y]
    return np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for a, b in itertools.product(pos, neg)])


def test_roc_auc_matches_pair_counting_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        s = rng.integers(0, 5, size=30).astype(float)  # many ties
        y = rng.random(30) < 0.4
        assert abs(roc_auc(s, y) - brute_auc(s, y)) < 1e-12
    assert np.isnan(roc_auc(np.ones(3), np.ones(3, bool)))


def test_patience_rule():
    assert early_stop_epoch(np.array([0.5, 0.6, 0.7]), 10) == 2
    # best at epoch 1; epochs 2..4 do not improve; patience 3 stops at epoch 4 even though epoch 5 is higher
    assert early_stop_epoch(np.array([0.5, 0.8, 0.7, 0.7, 0.79, 0.9]), 3) == 1
    assert early_stop_epoch(np.array([0.5, 0.8, 0.7, 0.7, 0.79, 0.9]), 4) == 5
    assert early_stop_epoch(np.array([0.6, 0.6, 0.6]), 1) == 0  # ties are no improvement
    assert early_stop_epoch(np.array([np.nan, 0.5]), 5) == 1


def test_fit_keeps_the_early_stopping_epoch():
    snaps = to_snapshots(pa_churn(PaChurnConfig(n_snapshots=14, n_init=30, arrivals=10.0), 0), "1D")
    m = ModelConfig(hidden=8, alpha_grid=(3.0,), beta_grid=(8.0,), lambda_grid=(0.35,))
    tc = DecoderTrainConfig(epochs=4, patience=2)
    model = TopoGED(m, tc).fit(snaps, 10, 2, seed=0)
    info = model.train_info
    aucs = np.asarray(info["val_auc_per_epoch"])[0]
    assert aucs.shape == (4,) and np.all((aucs >= 0) & (aucs <= 1))
    assert info["kept_epoch"] == [early_stop_epoch(aucs, 2) + 1]
    # the kept parameters reproduce the AUC recorded for their epoch (independent recomputation)
    vex = model.validation_examples()
    val = jax.tree.map(lambda a: a[None], stack_examples(vex, *pad_sizes(vex)))
    tiled = jax.tree.map(lambda a: np.repeat(np.asarray(a)[None, None], 4, axis=1), model.params)  # same shapes
    again = validation_aucs(Decoder(m.hidden, m.dropout, m.n_levels), tiled, val)[0]
    assert np.all(np.abs(again - aucs[info["kept_epoch"][0] - 1]) < 1e-4)  # recorded to 4 decimals
