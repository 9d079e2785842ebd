#!/usr/bin/env bash
# Session 10, final call (one GPU): the helpers' second round.
# Phase 1 (correctness, lanes at once): B's GEMM-filter checks (device_highd.sh checks), C's rest of
#   test_cuda_devices (small) and its sweep (device_package_default.sh rest), E's streamed bounded
#   solvers test with CUDA Shallot (device_shallot.sh streamed).
# Phase 2 (timings, the GPU alone, host thread on cores 0-1): B's before/after (ab), then C's map of
#   the one-GPU default update, before/after.
# Usage: OUT=DIR docs/lab/device-scripts/device_session10_final.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
out=${OUT:?}; mkdir -p "$out"; start=$SECONDS
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
OUT=$out KMS_LANE_TIMEOUT=150 "$here/device_lanes.sh" \
  "B@0-4|.devcarry-B|KMS_CHECKS_LIMIT=100 docs/lab/device-scripts/device_highd.sh checks; grep -h -E '^FAIL|returned FALSE|Loc:' \$OUT/*.log | head -20" \
  "C@5-9|.devcarry-pkgC|docs/lab/device-scripts/device_package_default.sh rest" \
  "E@10-15|.devcarry-shallot|KMS_SHALLOT_CHECKS=145 docs/lab/device-scripts/device_shallot.sh streamed"
echo "phase 1 done at $((SECONDS - start)) s"
mkdir -p "$out/B-ab" "$out/C-map"
(cd "$root" && OUT=$out/B-ab KMS_DEVICE_CARRY=.devcarry-B KMS_AB_BUDGET=80 \
  KMS_AB_ROWS="${KMS_B_ROWS:-blobs:1000000:256:1000:base,new blobs:1000000:128:1000:base,new blobs:1000000:64:1000:base,new uniform:1000000:256:1000:base,new uniform:1000000:128:1000:base,new uniform:1000000:64:1000:base,new}" \
  timeout 100 taskset -c 0-1 docs/lab/device-scripts/device_highd.sh ab > "$out/B-ab.txt" 2>&1)
echo "B ab: exit $? at $((SECONDS - start)) s"
(cd "$root" && OUT=$out/C-map KMS_DEVICE_CARRY=.devcarry-pkgC KMS_PKG_BUDGET=110 \
  timeout 130 taskset -c 0-1 docs/lab/device-scripts/device_package_default.sh map > "$out/C-map.txt" 2>&1)
echo "C map: exit $? at $((SECONDS - start)) s"
for f in B C E; do echo "=== lane $f"; tail -30 "$out/$f.txt"; done
echo "=== B ab"; tail -16 "$out/B-ab.txt"; echo "=== C map"; tail -45 "$out/C-map.txt"
