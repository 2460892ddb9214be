#!/usr/bin/env bash
# One process per GPU host under SLURM (srun --ntasks-per-node=1): every process runs the same
# `jaxpapers train ARGS...`; jax.distributed.initialize() reads SLURM's variables (SLURM_NTASKS > 1).
#   srun --nodes=8 --ntasks-per-node=1 --gpus-per-node=8 launch/gpu_hosts.sh --config ... --topology h200-64
set -euo pipefail
cd "$(dirname "$0")/.."
export XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-0.9}
exec "${JAXPAPERS_PYTHON:-.venv/bin/python}" -m jaxpapers.launch.train "$@"
