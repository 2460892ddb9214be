"""Rules for UniALM (``jaxpapers/unialm/lm.py``): the shared transformer tables (spec §Scale-up).

Mesh axes: data (pure data parallel), fsdp (data parallel + parameter/optimizer sharding), tensor (heads,
MLP and vocabularies split), sequence (context parallelism over frames). Params: EMBED→fsdp; MLP, HEADS (the
KV-group count for key/value kernels) and VOCAB (text table, the Q·V audio rows, the audio heads)→tensor;
KV, LAYERS, the depth link's d_dec side and the heads' codebook axis→replicated. Under ``fsdp_tp`` every sharded
dimension of the paper model divides: d 3072 and d_dec 2048 over fsdp ≤ 1024, 8 KV groups, V = 12,296 = 8·1537,
text vocabulary 128,256 = 2⁸·501 and MLP 8192 over tensor ∈ {1, 2, 4, 8}. The experts are sequential layers,
not routed, so no expert axis. BATCH comes before EMBED: an activation's EMBED stays replicated.
"""

from jaxpapers.launch.rules.transformer import STRATEGIES as _SHARED

STRATEGIES = dict(_SHARED)
