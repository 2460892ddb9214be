"""Claims of the worked example (the pattern: experiments measure, predicates decide)."""

from __future__ import annotations

import tempfile

import jax
import ml_collections

from jaxpapers.core import plots
from jaxpapers.core.claims import Above, AllOf, Below, Claim, Measurement


def copy_learned(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """Trains TinyLM with the shared trainer (checkpointing into a temporary workdir) and evaluates."""
    del key  # the config's seed drives data and init, so `jaxpapers train` reproduces this run
    from jaxpapers.example.train import train

    with tempfile.TemporaryDirectory() as workdir:
        result = train(cfg, workdir, progress=False)
    final = result.history[-1]
    steps, losses = result.series("loss")
    fig, ax = plots.figure()
    plots.training_curves(ax, result.history, ("loss", "eval/loss"), logy=True)
    ax.axhline(cfg.max_eval_loss, ls="--", color="gray", lw=1)
    ax.set_title("copy task: loss on the copied half")
    return Measurement(
        measured={"eval_loss": final["eval/loss"], "eval_accuracy": final["eval/accuracy"]},
        predicted={"eval_loss": f"< {cfg.max_eval_loss}", "eval_accuracy": "≥ 0.99"},
        n=cfg.data.num_eval,
        details={
            "steps": int(steps[-1]),
            "first_loss": float(losses[0]),
            "chance_loss": float(jax.numpy.log(cfg.model.vocab_size)),
        },
        figures={"loss": fig},
    )


CLAIMS = [
    Claim(
        id="example/X1-copy-learned",
        statement="A 2-layer causal transformer trained by the shared trainer learns the copy task: held-out "
        "loss on the copied half < 0.05 nats (chance ln 16 = 2.77) and accuracy ≥ 0.99",
        source="worked example (not a paper claim)",
        kind="reproduction",
        experiment=copy_learned,
        config="example/copy",
        predicate=AllOf(Below(0.05, on="eval_loss"), Above(0.99, on="eval_accuracy")),
        budget_s={"quick": 30},
        presets=("tiny", "quick", "full"),
    ),
]
