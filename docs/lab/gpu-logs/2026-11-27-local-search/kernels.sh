#!/usr/bin/env bash
# Per-kernel time and instructions executed of three late bounded-assignment launches
# (after 120 matching launches) of Hamerly at 10^7 x 2-D, f32, for each k given, new
# build and (KMS_BASE=1) the base's CLI. ncu at the run's own clocks and caches.
# Usage: kernels.sh K...   (from the repository root)
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
data=/dev/shm/kms-ncu-1e7-2.npy
[ -f "$data" ] || generate_points blobs 10000000 2 "$data"
exes=("$cli")
if [ -n "${KMS_BASE:-}" ]; then
  xz -dc "$root/${KMS_DEVICE_CARRY:-.devcarry-gpu}/base-cli.xz" > "$work/base-cli" && chmod +x "$work/base-cli"
  exes+=("$work/base-cli")
fi
for exe in "${exes[@]}"; do
  for k in "$@"; do
    echo "== $(basename "$exe") k=$k ${KMS_SOLVER:-hamerly}"
    ncu --clock-control none --cache-control none -k regex:"${KMS_KERNEL:-hamerly_local_kernel|bounds_test_kernel|tiled_search}" \
      --launch-skip ${KMS_SKIP:-120} --launch-count ${KMS_COUNT:-3} \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum \
      "$exe" run --input "$data" --k $k --init random --seed 3 --backend cuda --solver ${KMS_SOLVER:-hamerly} --precision f32 \
      --max-iter 70 --tol 0 --report json 2>&1 | grep -E "_kernel|duration|inst_exec|throughput|dram|ERR|rror" | sed -E 's/\(BoundedArgs.*//'
  done
done
