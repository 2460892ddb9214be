"""X1's measurement against an independent recomputation, and the claim's verdict at tiny size."""

import numpy as np
import pytest

from jaxpapers.core import config, registry
from jaxpapers.example import TinyLM, TinyLMConfig, copy_task, experiments


def _numpy_masked_ce(logits: np.ndarray, tokens: np.ndarray, half_len: int) -> tuple[float, float]:
    """Mean float64 cross-entropy and accuracy of predicting tokens[:, L:] (the copied half), by hand."""
    logits = logits.astype(np.float64)[:, half_len - 1 :]  # logits[:, t] predicts tokens[:, t + 1]
    targets = tokens[:, half_len:]
    shifted = logits - logits.max(-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    nll = -np.take_along_axis(log_probs, targets[..., None], -1)[..., 0]
    return float(nll.mean()), float((logits.argmax(-1) == targets).mean())


@pytest.fixture(scope="module")
def tiny_run():
    """One tiny X1 run; the trained state is captured from the ``train`` call that ``measure`` makes."""
    cfg = config.load("example/copy:tiny", overrides={"train.steps": 12, "optim.lr": 1e-2})
    captured = {}

    def spy(*args, **kwargs):
        captured["result"] = real(*args, **kwargs)
        return captured["result"]

    real = experiments.copy_task.train
    mp = pytest.MonkeyPatch()
    mp.setattr(experiments.copy_task, "train", spy)
    try:
        m = experiments.copy_task.measure(cfg, None)
    finally:
        mp.undo()
    return cfg, m, captured["result"]


def test_measured_eval_loss_equals_numpy_recomputation(tiny_run):
    cfg, m, result = tiny_run
    d = cfg.data
    held_out = copy_task(d.num_eval, half_len=d.half_len, vocab_size=cfg.model.vocab_size, seed=cfg.seed + 1)
    model = TinyLM(config.to_dataclass(TinyLMConfig, cfg.model))
    logits = np.asarray(model.apply({"params": result.state.params}, held_out["tokens"][:, :-1]))
    loss, accuracy = _numpy_masked_ce(logits, held_out["tokens"], d.half_len)
    assert m.measured["eval_loss"] == pytest.approx(loss, rel=1e-5)
    assert m.measured["eval_accuracy"] == pytest.approx(accuracy, abs=1e-6)
    assert m.details["steps"] == cfg.train.steps and m.n == d.num_eval
    assert m.details["chance_loss"] == pytest.approx(np.log(16)) and m.predicted is None
    assert set(m.figures) == {"loss"}
    _, losses = result.series("loss")
    assert losses[-1] < losses[0]  # training moved the parameters the right way


def test_claim_verdicts_at_tiny_and_quick_criteria(tiny_run):
    """Tiny is report-only (4-12 steps cannot learn); quick judges the criterion and can fail."""
    _, m, _ = tiny_run
    (claim,) = registry.claims_of("example")
    m.preset = "tiny"
    assert claim.predicate(m).verdict == "report"
    m.preset = "quick"
    assert claim.predicate(m).verdict == "fail"  # 12 tiny steps: far from copying
    m.measured = {"eval_loss": 0.01, "eval_accuracy": 0.995}
    assert claim.predicate(m).verdict == "pass"
    m.measured = {"eval_loss": 0.01, "eval_accuracy": 0.98}
    assert claim.predicate(m).verdict == "fail"
