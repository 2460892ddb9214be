"""Package discovery only (everything else is in pyproject.toml).

``launch/``, ``configs/`` and ``benchmarks/`` sit at the top of the repository, as the project
conventions lay out, and are installed as ``jaxpapers.launch``, ``jaxpapers.configs`` and
``jaxpapers.benchmarks`` so that ``jaxpapers train``, ``verify`` and ``bench`` find rules, presets and
benchmarks from any directory, from a wheel too. In a checkout, ``jaxpapers/__init__.py`` resolves
them to the checkout itself.
"""

from setuptools import find_packages, setup

MAPPED = {"jaxpapers.launch": "launch", "jaxpapers.configs": "configs", "jaxpapers.benchmarks": "benchmarks"}

packages = find_packages(include=["jaxpapers", "jaxpapers.*"])
package_dir = {"jaxpapers": "jaxpapers"}
for name, folder in MAPPED.items():
    for sub in [""] + [f".{p}" for p in find_packages(where=folder)]:
        packages.append(name + sub)
        package_dir[name + sub] = folder + sub.replace(".", "/")

setup(packages=packages, package_dir=package_dir)
