"""The shared trainer: functional state, a pure train step, one readable fit loop and two recipes.

    tx = make_optimizer(to_dataclass(OptimConfig, cfg.optim), cfg.train.steps)
    result = train_model(init_params, loss_fn, tx, batches, loop=to_dataclass(LoopConfig, cfg.train),
                         key=key, workdir=workdir, mesh=mesh, rules=rules, eval_batch=held_out)
    run = make_seed_trainer(init_params, loss_fn, tx, sample_batch, steps=500)   # small models, on device
    result = run(keys, data)

``loss_fn(params, batch, key, *, train) -> (loss, aux)`` is the one interface. Papers customise
through ``loss_fn``, ``eval_fn`` and hooks, never by forking the loop.
"""

from jaxpapers.core.train.checkpoint import Checkpointer, fingerprint
from jaxpapers.core.train.loop import FitResult, fit
from jaxpapers.core.train.metrics import MetricWriter, read_metrics
from jaxpapers.core.train.optim import OptimConfig, learning_rate, make_optimizer
from jaxpapers.core.train.recipe import LoopConfig, train_model
from jaxpapers.core.train.scan import ScanFitResult, make_seed_trainer, scan_fit, uniform_batch
from jaxpapers.core.train.state import TrainState, init_state
from jaxpapers.core.train.step import make_eval_step, make_train_step

__all__ = [
    "Checkpointer",
    "FitResult",
    "LoopConfig",
    "MetricWriter",
    "OptimConfig",
    "ScanFitResult",
    "TrainState",
    "fingerprint",
    "fit",
    "init_state",
    "learning_rate",
    "make_eval_step",
    "make_optimizer",
    "make_seed_trainer",
    "make_train_step",
    "read_metrics",
    "scan_fit",
    "train_model",
    "uniform_batch",
]
