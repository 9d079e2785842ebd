#!/usr/bin/env bash
# 150 steps (tol 0) at 10^7 x 2-D, k = 100, f32: each run's total step time and the median
# of steps 51-150, base and new alternating twice, Hamerly, Exponion, Yinyang.
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
base=$work/base-cli
xz -dc "$root/.devcarry-gpu/base-cli.xz" > "$base" && chmod +x "$base"
record_device
data=/dev/shm/kms-t-10000000-2.npy
[ -f "$data" ] || generate_points blobs 10000000 2 "$data"
for s in hamerly exponion yinyang; do
  line="$s:"
  for rep in 1 2; do
    for w in base new; do
      exe=$cli; [ $w = base ] && exe=$base
      $exe run --input "$data" --k 100 --solver $s --backend cuda --precision f32 --init random --seed 3 --tol 0 \
        --max-iter 150 --report json > /dev/shm/l.json 2>&1
      line="$line $w $(python3 -c "
import json,statistics,sys
it=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{\"type\":\"iteration\"')]
t=[r['time_total_ms'] for r in it]
print(f'{sum(t):.1f} ms ({statistics.median(t[50:150])*1000:.1f} us)')" /dev/shm/l.json)"
    done
  done
  echo "$line"
done
