"""Importing the plotting helpers or running a claim never changes matplotlib's backend (notebooks
keep their inline backend and show figures)."""

import subprocess
import sys


def test_plots_and_verify_leave_the_backend_alone():
    code = (
        "import matplotlib; matplotlib.use('svg');"
        "import jaxpapers.core.plots, jaxpapers.core.verify;"
        "from jaxpapers.core import plots; fig, ax = plots.figure();"
        "print(matplotlib.get_backend())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "svg"
