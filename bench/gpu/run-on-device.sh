#!/usr/bin/env bash
# Device call 2 of ../shared/gpu/README.md, the whole GPU benchmark in one command:
#   carry [".gpu-app"], command: bash bench/gpu/run-on-device.sh
# (after `npm run build && bash bench/gpu/pack.sh` here and device call 1, `bash .gpu-cuda/device-install-cuda.sh`).
# Results go to $OUT (the device tool brings them back); copy them into bench/results/ and commit them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source .gpu-app/device-env.sh
nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv,noheader || true
node --max-old-space-size=65536 bench/gpu/run.mjs --out "${OUT:-bench/results}" "$@"
