"""Experiments of ``flow_matching``, one module per claim group; each ``measure(cfg, key) -> Measurement``.

    optimisation.py    FM1   GD convergence and laziness over widths
    generalisation.py  FM2, FM3, FM5   fixed-triple GD runs: test − train gap, W2 guarantee, width
    references.py      FM4, FM4c   closed forms and the KS negative control
    images.py          FM6   minibatch CFM on digits / MNIST
"""

from jaxpapers.flow_matching.experiments import generalisation, images, optimisation, references

__all__ = ["generalisation", "images", "optimisation", "references"]
