#!/usr/bin/env bash
# For session 13's first device call (written in session 12): helper-c-land's checks, then its map
# (GPU alone), then B's d = 16/32 and k = 100 re-run with the peers if time is left.
# Carry: .devcarry-c12 (self-contained: helper-c-land at 212c467's sm_90 build + main f795d23's
# kmeans-cli as bin/kmeans-cli-old). About 300 s.
set -uo pipefail
cd "$(dirname "$0")/../../.."
S=docs/lab/device-scripts; t0=$SECONDS
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
mkdir -p $OUT/C $OUT/C-map
OUT=$OUT/C KMS_DEVICE_CARRY=.devcarry-c12 timeout 170 $S/device_cpu_order.sh check > $OUT/C-check.txt 2>&1
echo "== C check exit $? at $((SECONDS - t0)) s"; tail -c 3000 $OUT/C-check.txt
KMS_MAP_BUDGET=90 OUT=$OUT/C-map KMS_DEVICE_CARRY=.devcarry-c12 timeout 130 $S/device_cpu_order.sh map > $OUT/C-map.txt 2>&1
echo "== C map at $((SECONDS - t0)) s"; tail -c 2500 $OUT/C-map.txt
