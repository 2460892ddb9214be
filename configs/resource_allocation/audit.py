"""Are the computed equilibria real equilibria? (claim RA6 of ``resource_allocation``).

Spec "Exact equilibrium solver": the nested-bisection equilibrium is checked by (1) an independent
equilibrium computed from best replies alone (autodiff of the utility written through the mechanism,
no hand-derived condition) and (2) a deviation audit: every agent's utility on 2001 alternative
weights plus 0, the others fixed.

    jaxpapers verify resource_allocation/RA6                 # quick: 256 instances × α ∈ {1, .25, .01}
    jaxpapers verify resource_allocation/RA6 --preset full   # 10^4 instances

Expected (quick): max deviation gain ~1e-15 (≤ 1e-9 required), max |x_BR − x_NE| ~1e-13 (≤ 1e-6);
~10–20 s on 2 CPU cores.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 1
    cfg.solver = ml_collections.ConfigDict(dict(outer_iters=80, inner_iters=60, chunk_size=None))
    cfg.instances = ml_collections.ConfigDict(
        dict(num=256, n_min=2, n_max=8, family_probs=(0.3, 0.5, 0.2), log10_s_range=(-3.0, 0.5))
    )
    cfg.alphas = (1.0, 0.25, 0.01)
    cfg.grid_size = 2001  # alternative weights per agent (plus 0), 10^-3 … 10^3 × max(w_i, W_-i)

    if a.preset == "tiny":
        cfg.instances.update(num=8, n_max=4)
        cfg.grid_size = 201
        cfg.solver.chunk_size = 3  # exercises the chunked path (with a ragged last chunk)
    elif a.preset == "full":
        cfg.instances.update(num=10_000, n_max=16)
        cfg.solver.chunk_size = 4096
    return cfg
