"""Worked example: a tiny causal transformer learns to copy, trained end to end by the shared trainer.

This is the pattern every model paper copies: a Linen model built from ``core.nn`` with logical axis
names, a pure loss function, generated data as a grain source, a ``train(cfg, workdir, *, mesh)``
entry point over ``core.train.fit``, a config file with tiny/quick/full presets, and one claim.
"""

from jaxpapers.example.data import copy_task
from jaxpapers.example.model import TinyLM, TinyLMConfig
from jaxpapers.example.train import evaluate, loss_fn, train

__all__ = ["TinyLM", "TinyLMConfig", "copy_task", "evaluate", "loss_fn", "train"]
