#!/usr/bin/env bash
# One late launch of the low-d search (Exponion's short list), in detail; 10^6 x 2-D blobs, k = 1000, f32.
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
$cli generate --generate blobs:n=1000000,d=2,k=100 --seed 7 --out /dev/shm/p.npy > /dev/null
$cli run --input /dev/shm/p.npy --k 1000 --solver exponion --backend cuda --precision f32 --init random --seed 3 --max-iter 260 --tol 0 --report json \
  | python3 -c "import sys,json; its=[json.loads(l) for l in sys.stdin if l.startswith('{\"type\":\"iteration\"')]; [print(x['iteration'] if 'iteration' in x else i+1, x['point_centroid_distances'], x['bound_skips'], x['labels_changed']) for i,x in enumerate(its) if i in (9,99,249)]"
ncu -k regex:low_d_search_kernel --launch-skip 248 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
  --section WarpStateStats --section InstructionStats --section SchedulerStats \
  $cli run --input /dev/shm/p.npy --k 1000 --solver exponion --backend cuda --precision f32 --init random --seed 3 --max-iter 252 --tol 0 --report json 2>&1 \
  | grep -vE "^\{|^==PROF==|^    ---|^$" | grep -E "[0-9]" | head -60
