#!/usr/bin/env bash
# Runs `jaxpapers train ARGS...` on every worker of a Cloud TPU VM pod slice, detached, one log per worker.
#
#   TPU_NAME=my-v5p-128 ZONE=us-east5-a launch/tpu_pod.sh --config configs/fuxvit/pretrain.py:preset=full \
#       --workdir gs://my-bucket/fuxvit --topology v5p-128
#   TPU_NAME=... ZONE=... launch/tpu_pod.sh --logs        # tail every worker's log
#   TPU_NAME=... ZONE=... launch/tpu_pod.sh --stop        # SIGTERM the run (it saves its current step)
#
# Steps: (1) ship the working tree as it is (tracked and untracked files, not only the last commit) to
# every worker; (2) once per worker, make a Python >= 3.11 virtualenv (uv fetches 3.11 on images that ship
# 3.10) with jaxpapers[data], jax[tpu] and gcsfs; (3) start the same command on all workers at once with
# nohup, logging to ~/jaxpapers/logs/worker-$ID.log. The entry point calls jax.distributed.initialize() for
# a multi-host topology: on TPU VMs JAX finds the coordinator itself. The workdir must be gs:// (every host
# writes checkpoints there); the XLA compilation cache is shared through the bucket too.
# Optional: PROJECT, JAXPAPERS_CACHE_DIR (default <workdir>/xla-cache), LIBTPU_INIT_ARGS (default below).
set -euo pipefail
: "${TPU_NAME:?set TPU_NAME}" "${ZONE:?set ZONE}"
GCLOUD=(gcloud compute tpus tpu-vm)
COMMON=(--zone "$ZONE" ${PROJECT:+--project="$PROJECT"})
on_all() { "${GCLOUD[@]}" ssh "$TPU_NAME" "${COMMON[@]}" --worker=all --command "$1"; }

case "${1:-}" in
  --logs) on_all 'tail -n 20 ~/jaxpapers/logs/worker-*.log'; exit 0 ;;
  --stop) on_all 'pkill -TERM -f "jaxpapers train" || true'; exit 0 ;;
esac

workdir=""
prev=""
for a in "$@"; do
  [ "$prev" = "--workdir" ] && workdir=$a
  case "$a" in --workdir=*) workdir=${a#--workdir=} ;; esac
  prev=$a
done
case "$workdir" in gs://*) ;; *) echo "tpu_pod.sh: --workdir must be a gs:// path every worker can write (got '$workdir')" >&2; exit 2 ;; esac

REPO_DIR=$(cd "$(dirname "$0")/.." && pwd)
ARCHIVE=$(mktemp -d)/jaxpapers.tar.gz
# The working tree as it is: tracked files plus untracked ones git does not ignore.
(cd "$REPO_DIR" && git ls-files -z --cached --others --exclude-standard | tar --null -czf "$ARCHIVE" -T -)
"${GCLOUD[@]}" scp "$ARCHIVE" "$TPU_NAME":~/jaxpapers.tar.gz "${COMMON[@]}" --worker=all

# XLA/libtpu flags that matter for FSDP + long-context training: overlap collectives with compute and
# let the latency-hiding scheduler reorder them; override with LIBTPU_INIT_ARGS.
LIBTPU_ARGS=${LIBTPU_INIT_ARGS:-"--xla_enable_async_all_gather=true --xla_enable_async_reduce_scatter=true --xla_tpu_enable_async_collective_fusion=true --xla_tpu_enable_async_collective_fusion_fuse_all_gather=true --xla_tpu_overlap_compute_collective_tc=true --xla_enable_async_collective_permute=true"}
CACHE=${JAXPAPERS_CACHE_DIR:-"${workdir%/}/xla-cache"}
ARGS=$(printf '%q ' "$@")

on_all "
  set -e
  mkdir -p ~/jaxpapers/logs && tar -xzf ~/jaxpapers.tar.gz -C ~/jaxpapers && cd ~/jaxpapers
  if [ ! -x .venv/bin/jaxpapers ]; then
    if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then python3 -m venv .venv
    else (command -v uv >/dev/null || curl -LsSf https://astral.sh/uv/install.sh | sh) && ~/.local/bin/uv venv -p 3.11 .venv \\
         && .venv/bin/python -m ensurepip -q; fi
    .venv/bin/python -m pip install -q -e '.[data]' 'jax[tpu]' gcsfs
  else
    .venv/bin/python -m pip install -q --no-deps -e .
  fi
  ID=\$(curl -s -H Metadata-Flavor:Google http://metadata.google.internal/computeMetadata/v1/instance/attributes/agent-worker-number || hostname)
  LIBTPU_INIT_ARGS='$LIBTPU_ARGS' JAXPAPERS_CACHE_DIR='$CACHE' PYTHONUNBUFFERED=1 \\
    nohup .venv/bin/jaxpapers train $ARGS > logs/worker-\$ID.log 2>&1 < /dev/null &
  echo \"worker \$ID started: ~/jaxpapers/logs/worker-\$ID.log\"
"
echo "started on every worker of $TPU_NAME; follow with: TPU_NAME=$TPU_NAME ZONE=$ZONE $0 --logs"
