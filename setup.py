"""Package discovery only (everything else is in pyproject.toml).

``launch/`` and ``configs/`` sit at the top of the repository, as the project conventions lay out,
and are installed as ``jaxpapers.launch`` and ``jaxpapers.configs`` so that ``jaxpapers train`` and
``jaxpapers verify`` find rules and presets from any directory, installed or editable.
"""

from setuptools import find_packages, setup

MAPPED = {"jaxpapers.launch": "launch", "jaxpapers.configs": "configs"}

packages = find_packages(include=["jaxpapers", "jaxpapers.*"])
package_dir = {"jaxpapers": "jaxpapers"}
for name, folder in MAPPED.items():
    for sub in [""] + [f".{p}" for p in find_packages(where=folder)]:
        packages.append(name + sub)
        package_dir[name + sub] = folder + sub.replace(".", "/")

setup(packages=packages, package_dir=package_dir)
