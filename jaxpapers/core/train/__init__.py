"""The shared trainer: functional state, a pure train step and one readable fit loop.

    state, shardings = init_state(lambda k: model.init(k, x)["params"], tx, key, mesh=mesh, rules=rules)
    step = make_train_step(loss_fn, tx)        # loss_fn(params, batch, key, *, train) -> (loss, aux)
    result = fit(state, step, data, num_steps=1000, workdir="/tmp/run", shardings=shardings, ...)

Papers customise through ``loss_fn``, ``eval_fn`` and hooks, never by forking the loop.
"""

from jaxpapers.core.train.checkpoint import Checkpointer, fingerprint
from jaxpapers.core.train.loop import FitResult, fit
from jaxpapers.core.train.metrics import MetricWriter, read_metrics
from jaxpapers.core.train.state import TrainState, init_state
from jaxpapers.core.train.step import make_eval_step, make_train_step

__all__ = [
    "Checkpointer",
    "FitResult",
    "MetricWriter",
    "TrainState",
    "fingerprint",
    "fit",
    "init_state",
    "make_eval_step",
    "make_train_step",
    "read_metrics",
]
