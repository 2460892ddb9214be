"""Rules for FuxViT (``jaxpapers/fuxvit``): frames are the context-parallel axis.

Mesh axes: data (pure data parallel), fsdp (data parallel + parameter/optimizer sharding), tensor
(heads and MLP split), sequence (context parallelism over *frames*: a frame's tokens are never split,
so T must be divisible by the ``sequence`` size). Params: EMBED→fsdp, MLP/HEADS→tensor, KV, PATCH
(tubelet input features), LAYERS→replicated. Activations [B, T, P, D]: BATCH→(data, fsdp),
FRAMES→sequence, LENGTH (token within a frame)→replicated. BATCH is listed before EMBED, so an
activation's EMBED finds fsdp taken and stays replicated, while a parameter's EMBED takes fsdp.
Under ``fsdp_tp_cp`` (FRAMES→sequence) the model's FSA layers run under ``shard_map``
(``jaxpapers/fuxvit/kernels/fsa/context_parallel.py``: batch over BATCH's axes, frames over
``sequence``, heads over HEADS's axis, K/V all-gathered along ``sequence``); the model reads these
tables from the active rule context, so the other tables leave all partitioning to the compiler.
"""

from jaxpapers.core import axes

_BATCH = (axes.BATCH, ("data", "fsdp"))


def _table(embed, mlp, heads, frames):
    return (
        _BATCH,
        (axes.FRAMES, frames),
        (axes.LENGTH, None),
        (axes.EMBED, embed),
        (axes.MLP, mlp),
        (axes.HEADS, heads),
        (axes.KV, None),
        (axes.VOCAB, None),
        (axes.LAYERS, None),
        (axes.PATCH, None),
    )


STRATEGIES = {
    "dp": _table(embed=None, mlp=None, heads=None, frames=None),
    "fsdp": _table(embed="fsdp", mlp=None, heads=None, frames=None),
    "fsdp_tp": _table(embed="fsdp", mlp="tensor", heads="tensor", frames=None),
    "fsdp_tp_cp": _table(embed="fsdp", mlp="tensor", heads="tensor", frames="sequence"),
}
