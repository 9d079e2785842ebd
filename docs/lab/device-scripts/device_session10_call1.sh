#!/usr/bin/env bash
# Session 10, call 1 (one H100): helpers' first device round.
# Phase 1 (correctness, lanes at once): B's GEMM-filter checks (device_highd.sh checks) on cores
#   0-3, E's CUDA Shallot checks (device_shallot.sh checks) on cores 4-7, C's one-GPU default sweep
#   (device_package_default.sh sweep) on cores 8-11; A's seeding bench (CPU only) runs from the
#   start on cores 12-15 (its 1-thread rows are the target's).
# Phase 2 (timings, GPU alone, its host thread on cores 0-1): B's before/after (ab), then E's
#   convergence timings; D's out-of-core bench (CPU and disk only) beside them on cores 2-9.
# Usage: OUT=DIR docs/lab/device-scripts/device_session10_call1.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
out=${OUT:?}; mkdir -p "$out"; start=$SECONDS
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
(cd "$root" && OUT=$out/A KMS_DEVICE_CARRY=.devcarry-A KMS_BUDGET=200 timeout 235 taskset -c 12-15 \
  "$here/device_seeding_parallel.sh" > "$out/A.txt" 2>&1; echo "A: exit $? at $((SECONDS - start)) s" >> "$out/A.txt") &
OUT=$out KMS_LANE_TIMEOUT=175 "$here/device_lanes.sh" \
  "B@0-3|.devcarry-B|KMS_CHECKS_LIMIT=100 docs/lab/device-scripts/device_highd.sh checks" \
  "E@4-7|.devcarry-shallot|KMS_SHALLOT_CHECKS=120 docs/lab/device-scripts/device_shallot.sh checks" \
  "C@8-11|.devcarry-pkgC|docs/lab/device-scripts/device_package_default.sh sweep"
echo "phase 1 done at $((SECONDS - start)) s"
(cd "$root" && OUT=$out/D KMS_DEVICE_CARRY=.devcarry-ooc KMS_OOC_BUDGET=150 timeout 230 taskset -c 2-9 \
  "$here/device_ooc_bench.sh" > "$out/D.txt" 2>&1; echo "D: exit $? at $((SECONDS - start)) s" >> "$out/D.txt") &
mkdir -p "$out/B-ab" "$out/E-conv"
(cd "$root" && OUT=$out/B-ab KMS_DEVICE_CARRY=.devcarry-B KMS_AB_BUDGET=85 \
  KMS_AB_ROWS="blobs:1000000:256:1000:base,new blobs:1000000:128:1000:base,new blobs:1000000:64:1000:base,new uniform:1000000:256:1000:base,new uniform:1000000:128:1000:base,new uniform:1000000:64:1000:base,new" \
  timeout 120 taskset -c 0-1 docs/lab/device-scripts/device_highd.sh ab > "$out/B-ab.txt" 2>&1)
echo "B ab: exit $? at $((SECONDS - start)) s"
(cd "$root" && OUT=$out/E-conv KMS_DEVICE_CARRY=.devcarry-shallot KMS_SHALLOT_TOTAL=125 \
  timeout 130 taskset -c 0-1 docs/lab/device-scripts/device_shallot.sh converge > "$out/E-conv.txt" 2>&1)
echo "E converge: exit $? at $((SECONDS - start)) s"
wait
echo "all done at $((SECONDS - start)) s"
for f in B E C; do echo "=== lane $f"; tail -40 "$out/$f.txt"; done
echo "=== B ab"; tail -30 "$out/B-ab.txt"; echo "=== E converge"; tail -40 "$out/E-conv.txt"
echo "=== A"; tail -40 "$out/A.txt"; echo "=== D"; tail -40 "$out/D.txt"
