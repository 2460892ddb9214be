"""Efficiency of the α-proportional mechanisms (claims RA1–RA5 of ``resource_allocation``).

Paper: "A Unified Framework for Uniform-Price Resource Allocation Mechanisms" (arXiv 2606.06151),
price-of-anarchy results; Kelly's 3/4 bound from Johari & Tsitsiklis (2004). Reproduced:

* RA1  Kelly's efficiency on the tight family equals (3n+2)/(4n+2) (n = 1, 2, 10, 100, 1000) → 3/4.
* RA2  Kelly's efficiency ≥ 3/4 on 4096 random concave instances (2–8 agents).
* RA3  α-mechanism efficiency ≥ (1+2√α)/(1+√α)² for α ∈ {1, .5, .25, .1, .01} on the same instances.
* RA4  the α tight family approaches the bound from above, gap ∝ 1/n.
* RA5  the worst measured efficiency decreases strictly in α, ≥ 0.99 at α = 0.01 (the key figure).

    jaxpapers verify resource_allocation/RA1 resource_allocation/RA2 ...   # quick preset, 2-core CPU
    jaxpapers verify resource_allocation --preset full                      # GPU: 10^6 instances, 50 α, search

Expected (quick): RA1 max |err| ~3e-15, value at n = 1000 0.750125; RA2 min 0.7963; RA3 min ratio −
bound ≥ 7.6e-5 for every α; RA4 gap(1000) 1.2e-4 (α = 1) … 7.5e-8 (α = 0.01), gap ratio 0.0099–0.0105;
RA5 worst [0.99174, 0.94228, 0.88891, 0.82848, 0.75012] by ascending α. Wall time on 2 quiet CPU cores
(compile included): RA1/RA4 ~2 s; RA2 ~10 s (it runs the α sweep that RA3 and RA5 then reuse in the
same process; each computes it when run alone). Full preset: GPU minutes.
"""

import ml_collections
import numpy as np

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.solver = ml_collections.ConfigDict(dict(outer_iters=80, inner_iters=60, chunk_size=None))
    cfg.kelly_ns = (1, 2, 10, 100, 1000)  # RA1: agents added to agent 1
    cfg.instances = ml_collections.ConfigDict(
        dict(num=4096, n_min=2, n_max=8, family_probs=(0.3, 0.5, 0.2), log10_s_range=(-3.0, 0.5))
    )
    cfg.alphas = (1.0, 0.5, 0.25, 0.1, 0.01)  # RA3-RA5
    cfg.tight_ns = (1, 10, 1000)  # RA4 (and the tight-family points of RA5)
    # Adversarial search (spec: full preset): generations = 0 switches it off.
    cfg.search = ml_collections.ConfigDict(dict(population=4096, generations=0, elite_frac=0.1, sigma=0.3))

    if a.preset == "tiny":
        cfg.instances.update(num=32, n_max=4)
        cfg.solver.chunk_size = 16  # exercises the chunked path
        cfg.alphas = (1.0, 0.25, 0.01)
        cfg.kelly_ns = (1, 10, 1000)
        cfg.search.update(population=32, generations=2)
    elif a.preset == "full":
        cfg.instances.update(num=1_000_000, n_max=64)
        cfg.solver.chunk_size = 65_536
        cfg.alphas = tuple(float(x) for x in np.round(np.geomspace(1.0, 1e-3, 50), 12))
        cfg.kelly_ns = (1, 2, 10, 100, 1000, 10_000, 100_000)
        cfg.tight_ns = (1, 10, 1000, 10_000, 100_000)
        cfg.search.update(population=4096, generations=50)
    return cfg
