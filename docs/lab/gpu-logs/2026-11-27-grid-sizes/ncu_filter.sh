#!/usr/bin/env bash
# Run record (2026-11-27): one late launch of a bounds kernel in detail, at the run's own
# clocks and caches. Usage: ncu_filter.sh N K ITER SOLVER KERNEL_REGEX SKIP
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
n=$1; k=$2; iters=$3; solver=$4; kern=$5; skip=$6
data=/dev/shm/kms-late-$n-2.npy
[ -f "$data" ] || $cli generate --generate blobs:n=$n,d=2,k=100 --seed 7 --out "$data" > /dev/null
echo "## $kern, launch $skip of $solver n=$n d=2 k=$k"
ncu --clock-control none --cache-control none -k regex:$kern --launch-skip $skip --launch-count 1 --section SpeedOfLight \
  --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,l1tex__t_sectors.sum,smsp__inst_executed.sum,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_lg_throttle \
  $cli run --input "$data" --k $k --solver $solver --backend cuda --precision f32 --init random --seed 3 --max-iter $iters --tol 0 --report json 2>&1 \
  | grep -vE "^\{|^==PROF==|^    ---|^$" | grep -E "[0-9]" | grep -vE "^ +(OPT|INF)" | head -70
