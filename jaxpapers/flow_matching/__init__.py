"""Flow matching with over-parameterised two-layer ReLU velocity fields (arXiv 2606.10089), simulated.

    config.py      frozen, validated settings (no JAX)
    targets.py     Gaussian and GMM targets with exact v*, floors and transport map; image targets
    model.py       the width-m two-layer ReLU field (NTK scaling, fixed ±1 heads), closed-form Jacobian
    ntk.py         closed-form H∞ (float64), empirical NTK, power iteration
    train.py       fixed triples, full-batch GD as one lax.scan, the minibatch CFM loss
    sampler.py     RK4/Euler integration, Λ̂ along trajectories
    metrics.py     W2 (assignment, sorting, Sinkhorn), Bures–Wasserstein, KS against exact CDFs
    data.py        digits and MNIST IDX reader
    studies.py     sweeps shared by claims (memoised)
    experiments/   one module per claim group; figures.py; claims.py
"""

from jaxpapers.flow_matching import config, experiments, figures, studies
from jaxpapers.flow_matching.data import load_images, read_idx
from jaxpapers.flow_matching.metrics import bures_wasserstein, sinkhorn_cost, w2
from jaxpapers.flow_matching.model import TwoLayerReLU, init_params, jacobian_x, velocity
from jaxpapers.flow_matching.ntk import gram_hinf, lambda_max, lambda_min
from jaxpapers.flow_matching.sampler import integrate, lipschitz_along
from jaxpapers.flow_matching.targets import GaussianTarget, GMMTarget, ImageTarget
from jaxpapers.flow_matching.train import gd_train, make_triples

__all__ = [
    "GMMTarget",
    "GaussianTarget",
    "ImageTarget",
    "TwoLayerReLU",
    "bures_wasserstein",
    "config",
    "experiments",
    "figures",
    "gd_train",
    "gram_hinf",
    "init_params",
    "integrate",
    "jacobian_x",
    "lambda_max",
    "lambda_min",
    "lipschitz_along",
    "load_images",
    "make_triples",
    "read_idx",
    "sinkhorn_cost",
    "studies",
    "velocity",
    "w2",
]
