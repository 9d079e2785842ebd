#!/usr/bin/env bash
# Where a late Hamerly bounds kernel's time goes: 10^7 x 2-D, k = 100, f32, step 101 of a
# tol-0 run, at the run's own clocks and caches (ncu --clock-control none --cache-control none).
# Usage: [KMS_PRECISION=f32|f64] ncu.sh [CLI]   (default: the packed build's CLI, f32)
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
exe=${1:-$cli}
record_device
data=/dev/shm/kms-ncu-1e7-2.npy
[ -f "$data" ] || generate_points blobs 10000000 2 "$data"
ncu --clock-control none --cache-control none -k regex:"${KMS_KERNEL:-hamerly_kernel|bounds_test_kernel}" --launch-skip ${KMS_SKIP:-100} --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
  --section LaunchStats --section SchedulerStats --metrics smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_sample_count,dram__bytes_read.sum,dram__bytes_write.sum \
  "$exe" run --input "$data" --k 100 --init random --seed 3 --backend cuda --solver ${KMS_SOLVER:-hamerly} --precision ${KMS_PRECISION:-f32} --max-iter 102 --tol 0 \
  --report json 2>&1 | grep -vE '^\{' | grep -E 'Duration|Throughput|Memory|Occupancy|Stall|Warp Cycles|Registers|Block Size|Grid Size|Eligible|Issued|Active Warps|L1|L2|DRAM|dram|Theoretical|Achieved|hamerly|bounds_test|pcsamp|bytes' | head -80
