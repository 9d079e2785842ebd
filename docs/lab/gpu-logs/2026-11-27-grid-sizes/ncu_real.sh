#!/usr/bin/env bash
# Run record (2026-11-27): per-kernel device time at the clocks and caches a run really has
# (ncu --clock-control none --cache-control none; the earlier ncu logs locked the base clock
# and flushed the caches before each launch). Late launches of a long run.
# Usage: ncu_real.sh N K ITER SKIP COUNT SOLVER
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
n=$1; k=$2; iters=$3; skip=$4; count=$5; solver=$6
data=/dev/shm/kms-late-$n-2.npy
[ -f "$data" ] || $cli generate --generate blobs:n=$n,d=2,k=100 --seed 7 --out "$data" > /dev/null
echo "## $solver n=$n d=2 k=$k: launches $skip.. ($count) of a $iters-step run"
ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip $skip --launch-count $count \
  --print-summary per-kernel \
  $cli run --input "$data" --k $k --solver $solver --backend cuda --precision f32 --init random --seed 3 --max-iter $iters --tol 0 --report json 2>&1 \
  | grep -E "^  [a-zA-Z]|gpu__time_duration" | grep -v -E "Note|aggregating|mean can" \
  | sed -E 's/\(([^()]|\([^()]*\))*\) \(/ (/; s/kms::|<unnamed>:://g; s/, Device 0, CC 9.0//; s/gpu__time_duration.sum//' | paste - - | tr -s ' '
