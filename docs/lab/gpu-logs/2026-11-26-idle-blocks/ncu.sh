#!/usr/bin/env bash
# Per-kernel device time of Exponion, 10^6 x 2-D blobs, k = 1000, f32: at steps 2-12 and late (launches 3000-3240 of 300 steps).
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
exe=${1:-$cli}
$cli generate --generate blobs:n=1000000,d=2,k=100 --seed 7 --out /dev/shm/p.npy > /dev/null
for range in "20 120 14" "3000 240 300"; do
  set -- $range
  echo "## launches $1.. ($2), $3-step run"
  ncu --metrics gpu__time_duration.sum --launch-skip $1 --launch-count $2 --print-summary per-kernel \
    $exe run --input /dev/shm/p.npy --k 1000 --solver ${KMS_NCU_SOLVER:-exponion} --backend cuda --precision f32 --init random --seed 3 --max-iter $3 --tol 0 --report json 2>&1 \
    | grep -E "^  [a-zA-Z]|gpu__time_duration" | grep -v -E "Note|aggregating|mean can" \
    | sed -E 's/\(([^()]|\([^()]*\))*\) \(/ (/; s/kms::|<unnamed>:://g; s/, Device 0, CC 9.0//; s/gpu__time_duration.sum//' | paste - - | tr -s ' '
done
# One late launch each of the filter and the walk, in detail (KMS_NCU_DETAIL=1)
if [ "${KMS_NCU_DETAIL:-0}" = 1 ]; then
  for kern in hamerly_filter_kernel exponion_walk_kernel; do
    echo "## $kern, one launch near step 250"
    ncu -k regex:$kern --launch-skip 249 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \
      $exe run --input /dev/shm/p.npy --k 1000 --solver exponion --backend cuda --precision f32 --init random --seed 3 --max-iter 260 --tol 0 --report json 2>&1 \
      | grep -E "Duration|Throughput|Occupancy|Registers|Stall|Warp Cycles|Active Warps|Eligible|Issued|Hit Rate|Elapsed Cycles" | head -40
  done
fi
