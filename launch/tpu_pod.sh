#!/usr/bin/env bash
# Runs `jaxpapers train ARGS...` on every worker of a Cloud TPU VM pod slice.
#   TPU_NAME=my-v5p-128 ZONE=us-east5-a launch/tpu_pod.sh --config ... --workdir gs://bucket/run --topology v5p-128
# Needs gcloud with access to the TPU. Each worker runs one process; jax.distributed.initialize()
# (called by the entry point because TPU_WORKER_HOSTNAMES lists several hosts) connects them.
set -euo pipefail
: "${TPU_NAME:?set TPU_NAME}" "${ZONE:?set ZONE}"
PROJECT_FLAG=${PROJECT:+--project=$PROJECT}
REPO_DIR=$(cd "$(dirname "$0")/.." && pwd)
ARCHIVE=$(mktemp -d)/jaxpapers.tar.gz
git -C "$REPO_DIR" archive --format=tar.gz -o "$ARCHIVE" HEAD

gcloud compute tpus tpu-vm scp "$ARCHIVE" "$TPU_NAME":~/jaxpapers.tar.gz --zone "$ZONE" --worker=all $PROJECT_FLAG
gcloud compute tpus tpu-vm ssh "$TPU_NAME" --zone "$ZONE" --worker=all $PROJECT_FLAG --command "
  set -e
  mkdir -p ~/jaxpapers && tar -xzf ~/jaxpapers.tar.gz -C ~/jaxpapers
  cd ~/jaxpapers
  python3 -m venv .venv && .venv/bin/pip install -q -e '.[data]' 'jax[tpu]' gcsfs
  .venv/bin/jaxpapers train $(printf '%q ' "$@")
"
