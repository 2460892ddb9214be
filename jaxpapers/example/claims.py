"""Claims of the worked example: an experiment measures, a predicate decides.

Layout rule: ``claims.py`` only registers claims; each names its experiment's ``measure`` function, its
config file and the predicate, which is the one place a threshold is written (``ByPreset`` when a preset
needs another criterion). Claim ids are literal strings ``"<slug>/<ID>-<name>"``.
"""

from __future__ import annotations

from jaxpapers.core.claims import Above, AllOf, Below, ByPreset, Claim, Report

CLAIMS = [
    Claim(
        id="example/X1-copy-learned",
        statement="A 2-layer causal transformer trained by the shared trainer learns the copy task: the held-out "
        "loss on the copied half falls from chance (ln 16 = 2.77 nats) to near zero and the accuracy to near 1",
        source="worked example (not a paper claim)",
        kind="reproduction",
        experiment=".experiments.copy_task:measure",
        config="example/copy",
        predicate=ByPreset(
            AllOf(Below(0.05, on="eval_loss"), Above(0.99, on="eval_accuracy")),
            tiny=Report("4 steps check the plumbing, not learning (report only)"),
        ),
        budget_s={"quick": 30},
        presets=("tiny", "quick", "full"),
    ),
]
