"""Long-tailed recognition as continual learning (CLTR): Theorem A's neighbourhood of the Head solution,
Theorem B's CL upper bound, and Head-then-Tail training on long-tailed data.

    config.py      frozen, validated dataclasses (DigitsConfig, TheoryConfig, NetConfig, CLConfig)
    data/          LDAM-DRW profiles and draw, partitions, LT-digits, Gaussian mixture, CIFAR (binary),
                   ImageNet-LT lists, Caltech256 folders
    solvers.py     exact float64 minimizers of multinomial logistic regression with L2 (damped Newton)
    theory.py      Theorem A's bound, linear response, global and local beta, Theorem B's sides, log-log slope
    cltr.py        the generic weighted loss, the Adam/AdamW stage program, the true and empirical Fisher
    models.py      ResNet-32 (CIFAR) and the ViT with DualPrompt prefix prompts (full preset, C6)
    studies.py     the shared radius sweeps (C1, C2, C4)
    experiments/   theory (C1, C2, C4), cl (C3, C5a, C5b) and deep (C6)
    figures.py     the figures the notebook shows
    claims.py      the registered claims
"""

from jaxpapers.cltr import experiments, figures
from jaxpapers.cltr.cltr import (
    empirical_fisher,
    gather_selected,
    make_loss_fn,
    mlp_apply,
    mlp_init,
    train_stage,
    true_fisher,
)
from jaxpapers.cltr.config import CLConfig, DigitsConfig, NetConfig, TheoryConfig
from jaxpapers.cltr.data import (
    draw_long_tailed_rng,
    gaussian_mixture,
    load_caltech256,
    load_cifar10,
    load_cifar100,
    load_digits_split,
    load_imagenet_lt_list,
    lt_counts,
    make_long_tailed,
    partition,
    partition_ratio,
)
from jaxpapers.cltr.models import PromptedViT, ResNet32, prompt_optimizer, pull_loss, resnet_param_count
from jaxpapers.cltr.solvers import damped_newton, logreg_grad, logreg_hessian, logreg_loss, solve_logreg
from jaxpapers.cltr.theory import (
    cl_upper_bound,
    global_beta,
    linear_response_radius,
    loglog_slope,
    neighborhood_bound,
    smoothness_constant,
)

__all__ = [
    "CLConfig",
    "DigitsConfig",
    "NetConfig",
    "PromptedViT",
    "ResNet32",
    "TheoryConfig",
    "cl_upper_bound",
    "damped_newton",
    "draw_long_tailed_rng",
    "empirical_fisher",
    "experiments",
    "figures",
    "gather_selected",
    "gaussian_mixture",
    "global_beta",
    "linear_response_radius",
    "load_caltech256",
    "load_cifar10",
    "load_cifar100",
    "load_digits_split",
    "load_imagenet_lt_list",
    "loglog_slope",
    "logreg_grad",
    "logreg_hessian",
    "logreg_loss",
    "lt_counts",
    "make_long_tailed",
    "make_loss_fn",
    "mlp_apply",
    "mlp_init",
    "neighborhood_bound",
    "partition",
    "partition_ratio",
    "prompt_optimizer",
    "pull_loss",
    "resnet_param_count",
    "smoothness_constant",
    "solve_logreg",
    "train_stage",
    "true_fisher",
]
