"""Rules for small tabular models (``jaxpapers/comonet``: COMONet and its MLP, SMNN, ICNN baselines).

These models have a few thousand parameters and name no logical axes on them, so parameters and
optimizer state stay replicated under every strategy; batches are split over the data-parallel mesh
axes (``data`` and ``fsdp``). ``tensor`` and ``sequence``, where a mesh has them, carry replicated
work: nothing in a tabular model is worth splitting over them. The four strategies exist so that
``--config.strategy=...`` means the same on every family.
"""

from jaxpapers.core import axes

_TABLE = ((axes.BATCH, ("data", "fsdp")), *((name, None) for name in axes.ALL if name != axes.BATCH))

STRATEGIES = {"dp": _TABLE, "fsdp": _TABLE, "fsdp_tp": _TABLE, "fsdp_tp_cp": _TABLE}
