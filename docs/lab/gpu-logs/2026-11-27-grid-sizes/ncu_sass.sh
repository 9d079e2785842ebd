#!/usr/bin/env bash
# Run record (2026-11-27): one late launch of a kernel, per SASS instruction (executions
# and stall samples), at the run's own clocks. Usage: ncu_sass.sh N K ITER SOLVER KERNEL_REGEX SKIP OUTFILE
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
n=$1; k=$2; iters=$3; solver=$4; kern=$5; skip=$6; file=$7
data=/dev/shm/kms-late-$n-2.npy
[ -f "$data" ] || $cli generate --generate blobs:n=$n,d=2,k=100 --seed 7 --out "$data" > /dev/null
ncu --clock-control none --cache-control none -k regex:$kern --launch-skip $skip --launch-count 1 \
  --section SourceCounters --section InstructionStats --section WarpStateStats -o "$work/rep" \
  $cli run --input "$data" --k $k --solver $solver --backend cuda --precision f32 --init random --seed 3 --max-iter $iters --tol 0 --report json > /dev/null 2>&1
ncu -i "$work/rep.ncu-rep" --page source --print-source sass --csv > "$OUT/$file" 2>&1
wc -l "$OUT/$file"; head -3 "$OUT/$file" | cut -c1-400
