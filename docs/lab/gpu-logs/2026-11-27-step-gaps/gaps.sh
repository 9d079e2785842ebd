#!/usr/bin/env bash
# Run record (2026-11-27): how much of a short step the GPU spends in kernels. For each
# shape: the step time the CLI reports (events around the step; medians of steps 21-60),
# then ncu's per-kernel device time (at the run's own clocks and caches) over launches of
# steps ~21-60, summed per step. The difference is time the stream waited between kernels.
# Usage: gaps.sh "N D K SOLVER" ...
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
for shape in "$@"; do
  set -- $shape
  n=$1; d=$2; k=$3; solver=$4
  data=/dev/shm/kms-gaps-$n-$d.npy
  [ -f "$data" ] || $cli generate --generate blobs:n=$n,d=$d,k=100 --seed 7 --out "$data" > /dev/null
  args=(run --input "$data" --k $k --solver $solver --backend cuda --precision f32 --init random --seed 3 --tol 0 --report json)
  $cli "${args[@]}" --max-iter 60 > /tmp/gaps.json 2>&1
  step=$(python3 -c "
import json,statistics
it=[json.loads(l) for l in open('/tmp/gaps.json') if l.startswith('{\"type\":\"iteration\"')]
t=[r['time_total_ms'] for r in it[20:60]]
print(f'{statistics.median(t)*1000:.1f}')")
  total=$(ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --print-units base \
      $cli "${args[@]}" --max-iter 60 2>/dev/null | python3 "$(dirname "$0")/gaps_sum.py" 40 60)
  echo "$solver n=$n d=$d k=$k: step (events) $step us; kernels $total"
done
