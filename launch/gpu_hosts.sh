#!/usr/bin/env bash
# One process per GPU host (all its GPUs) running the same `jaxpapers train ARGS...`.
#
#   # SLURM, 8 hosts x 8 H200: jax.distributed.initialize() reads SLURM's variables
#   srun --nodes=8 --ntasks-per-node=1 --gpus-per-node=8 launch/gpu_hosts.sh \
#       --config configs/fuxvit/pretrain.py:preset=full --workdir /shared/fuxvit --topology h200-64
#   # without SLURM: set on every host JAX_COORDINATOR_ADDRESS=host0:1234 JAX_NUM_PROCESSES=8 JAX_PROCESS_ID=<i>
#
# SLURM sends SIGTERM before a preemption or the time limit (add `#SBATCH --signal=TERM@120`): the run
# saves its current step and exits 0, and a requeued job resumes from it. The workdir and the XLA
# compilation cache (JAXPAPERS_CACHE_DIR, default <workdir>/xla-cache) must be on a filesystem every
# host sees. Flags below are the ones that matter for FSDP/TP training on NVLink + InfiniBand hosts;
# set XLA_FLAGS or the NCCL variables yourself to override them.
set -euo pipefail
cd "$(dirname "$0")/.."

workdir=""; prev=""
for a in "$@"; do [ "$prev" = "--workdir" ] && workdir=$a; prev=$a; done
export JAXPAPERS_CACHE_DIR=${JAXPAPERS_CACHE_DIR:-${workdir:+${workdir%/}/xla-cache}}

# Memory: preallocate most of the GPU (the default 75 % wastes 35 GB of an H200).
export XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-0.92}
# XLA: overlap FSDP all-gathers / reduce-scatters with compute (latency-hiding scheduler), combine small
# collectives into larger ones, and let cuDNN/Triton fusions and command buffers cut launch overhead.
export XLA_FLAGS=${XLA_FLAGS:-"--xla_gpu_enable_latency_hiding_scheduler=true \
--xla_gpu_enable_triton_gemm=false \
--xla_gpu_all_gather_combine_threshold_bytes=134217728 \
--xla_gpu_reduce_scatter_combine_threshold_bytes=134217728 \
--xla_gpu_all_reduce_combine_threshold_bytes=134217728 \
--xla_gpu_enable_pipelined_all_gather=true \
--xla_gpu_enable_pipelined_reduce_scatter=true \
--xla_gpu_enable_while_loop_double_buffering=true"}
# NCCL: InfiniBand between hosts, NVLink inside; more channels for the large FSDP collectives.
export NCCL_IB_DISABLE=${NCCL_IB_DISABLE:-0}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-1}
export NCCL_MIN_NCHANNELS=${NCCL_MIN_NCHANNELS:-16}
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
export PYTHONUNBUFFERED=1

exec "${JAXPAPERS_PYTHON:-.venv/bin/python}" -m jaxpapers train "$@"  # the CLI: compilation cache, one-line errors
