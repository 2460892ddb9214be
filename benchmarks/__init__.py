"""Benchmarks, one script per paper: each times the paper's main computation against a baseline
measured in the same run and prints the ratio (``jaxpapers bench <name>``; absolute times only from
an accelerator). Shipped in the wheel as ``jaxpapers.benchmarks``."""
