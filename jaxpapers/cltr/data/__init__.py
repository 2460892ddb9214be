"""Long-tailed data: the LDAM-DRW profiles and draw (``lt``), LT-digits (``digits_lt``), a Gaussian mixture
(``gaussian_mixture``), synthetic textures, and the on-disk loaders (``cifar``, ``imagenet_lt``, ``caltech256``)."""

from jaxpapers.cltr.data.caltech256 import load_caltech256
from jaxpapers.cltr.data.digits_lt import DigitsSplit, load_digits_split
from jaxpapers.cltr.data.gaussian_mixture import gaussian_mixture, synthetic_images
from jaxpapers.cltr.data.imagenet_lt import load_imagenet_lt_list
from jaxpapers.cltr.data.lt import (
    draw_long_tailed_rng,
    lt_counts,
    make_long_tailed,
    many_medium_few,
    partition,
    partition_ratio,
)
from jaxpapers.core.data.cifar import load_cifar10, load_cifar100

__all__ = [
    "DigitsSplit",
    "draw_long_tailed_rng",
    "gaussian_mixture",
    "load_caltech256",
    "load_cifar10",
    "load_cifar100",
    "load_digits_split",
    "load_imagenet_lt_list",
    "lt_counts",
    "make_long_tailed",
    "many_medium_few",
    "partition",
    "partition_ratio",
    "synthetic_images",
]
