#!/usr/bin/env bash
# One late launch of Hamerly's low-d search (10^7 x 2-D, k = 100, f32; the 50th
# launch) under ncu with the scheduler, warp-state, occupancy and launch sections,
# at the run's own clocks and caches. Usage: search_ncu.sh [CLI] (default: the base's)
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
exe=${1:-}
if [ -z "$exe" ]; then
  exe=$work/base-cli
  xz -dc "$root/${KMS_DEVICE_CARRY:-.devcarry-gpu}/base-cli.xz" > "$exe" && chmod +x "$exe"
fi
data=/dev/shm/kms-ncu-1e7-2.npy
[ -f "$data" ] || generate_points blobs 10000000 2 "$data"
ncu --clock-control none --cache-control none -k regex:"${KMS_KERNEL:-low_d_search}" --launch-skip ${KMS_SKIP:-50} --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section InstructionStats \
  "$exe" run --input "$data" --k ${KMS_K:-100} --init random --seed 3 --backend cuda --solver ${KMS_SOLVER:-hamerly} --precision f32 \
  --max-iter 60 --tol 0 --report json 2>&1 | grep -vE '^\{|^    ---|^$' | head -120
