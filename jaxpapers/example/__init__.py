"""Worked example: a tiny causal transformer learns to copy, trained end to end by the shared trainer.

Not a paper: the smallest complete instance of the layout every paper copies (``CONVENTIONS.md``, "Layout").

    config.py        frozen, validated dataclasses (TinyLMConfig, CopyDataConfig); no JAX
    model.py         the Linen model (core.nn layers, logical axis names)
    data.py          the generated data (NumPy, seeded)
    train.py         make_loss_fn(model) and train(cfg, workdir, *, mesh=None, rules=None, progress=True)
    experiments/     one module per claim group: measure(cfg, key) -> Measurement (copy_task.py: X1)
    figures.py       the figures the notebook shows (and the claims save)
    claims.py        the registered claims: experiment + config + predicate
    configs/example/copy.py   presets tiny / quick / full (imports only config.py and core.config)

This ``__init__`` is the public API: the model and its config, the data, the training entry point, and the
``experiments`` and ``figures`` submodules. Notebooks, benchmarks and tests import only these names.
"""

from jaxpapers.example import experiments, figures
from jaxpapers.example.config import CopyDataConfig, TinyLMConfig
from jaxpapers.example.data import copy_task
from jaxpapers.example.model import TinyLM
from jaxpapers.example.train import make_loss_fn, train

__all__ = ["CopyDataConfig", "TinyLM", "TinyLMConfig", "copy_task", "experiments", "figures", "make_loss_fn", "train"]
