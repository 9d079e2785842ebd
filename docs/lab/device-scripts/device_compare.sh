#!/usr/bin/env bash
# A CUDA change against a base build, on the device. "new" is the packed build
# (docs/lab/device-scripts/device_pack.sh); "base" is the base build's CLI, carried xz-compressed as
# ${KMS_DEVICE_CARRY:-.devcarry-gpu}/base-cli.xz. Run from the repository root.
#   docs/lab/device-scripts/device_compare.sh checks "SOLVER K"... -- SOLVER...
#     The CUDA suites; compute-sanitizer memcheck and racecheck of each "SOLVER K" before
#     the -- (30 000 2-D points, 6 steps); then every iteration record (times left out)
#     and centroid file of base and new, for each SOLVER after the --, d = 2, 16, 40,
#     k = 5, 100, 1000, 1024, 1025, f32 and f64, 15 steps. KMS_BITS_ONLY=1: that
#     comparison alone.
#   docs/lab/device-scripts/device_compare.sh times "N D K SOLVER"...
#     Base and new alternating three times per shape (blobs, f32): the median step of
#     steps 21-60 of 60, in µs.
set -u
mode=${1:?checks or times}
shift
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
base=$work/base-cli
xz -dc "$root/${KMS_DEVICE_CARRY:-.devcarry-gpu}/base-cli.xz" > "$base" && chmod +x "$base"
record_device

if [ "$mode" = checks ]; then
  sanitized=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do sanitized+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  compared=("$@")
  if [ -z "${KMS_BITS_ONLY:-}" ]; then
    (cd "$work/bin" && for t in test_cuda_solvers test_cuda_devices test_cuda_weights test_cuda_init test_gpu_scores; do
      echo "$t: $(timeout 600 ./$t 2>&1 | grep -E '^Totals|FAIL' | tr '\n' ' ')"; done)
    $cli generate --generate blobs:n=30000,d=2,k=40 --seed 5 --out /dev/shm/s2.npy > /dev/null
    for sk in "${sanitized[@]}"; do
      set -- $sk
      for tool in memcheck racecheck; do
        echo "$tool $1 k=$2: $(compute-sanitizer --tool $tool --print-limit 5 $cli run --input /dev/shm/s2.npy --k $2 --solver $1 \
          --backend cuda --init random --seed 3 --max-iter 6 --tol 0 --report json 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tr '\n' ' ')"
      done
    done
  fi
  same=0; differ=0
  for d in 2 16 40; do
    $cli generate --generate blobs:n=200000,d=$d,k=50 --seed 5 --out /dev/shm/f$d.npy > /dev/null
    for k in 5 100 1000 1024 1025; do
      for s in "${compared[@]}"; do
        for p in f32 f64; do
          for w in base new; do
            exe=$cli; [ $w = base ] && exe=$base
            # Every field whose name holds "time" is left out: they differ from run to run.
            $exe run --input /dev/shm/f$d.npy --k $k --init random --seed 3 --backend cuda --precision $p --solver $s \
              --max-iter 15 --tol 0 --report json --centroids-out /dev/shm/c-$w.csv 2>&1 | sed -E 's/"[a-z_]*time[a-z_]*":[^,}]*,?//g' > /dev/shm/r-$w.txt
          done
          if cmp -s /dev/shm/c-base.csv /dev/shm/c-new.csv && cmp -s /dev/shm/r-base.txt /dev/shm/r-new.txt; then
            same=$((same + 1))
          else
            differ=$((differ + 1)); echo "DIFFER d=$d k=$k $s $p"
          fi
        done
      done
    done
  done
  echo "records and centroid files: $same runs the same as base, $differ differ"
elif [ "$mode" = times ]; then
  median() {  # FILE: median step (µs) of steps 21-60
    python3 -c "
import json,statistics,sys
it=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{\"type\":\"iteration\"')]
print(f'{statistics.median(r[\"time_total_ms\"] for r in it[20:60])*1000:.1f}')" "$1"
  }
  for shape in "$@"; do
    set -- $shape
    data=/dev/shm/kms-t-$1-$2.npy
    [ -f "$data" ] || $cli generate --generate blobs:n=$1,d=$2,k=100 --seed 7 --out "$data" > /dev/null
    line="$4 n=$1 d=$2 k=$3:"
    for rep in 1 2 3; do
      for w in base new; do
        exe=$cli; [ $w = base ] && exe=$base
        $exe run --input "$data" --k $3 --solver $4 --backend cuda --precision f32 --init random --seed 3 --tol 0 \
          --max-iter 60 --report json > /dev/shm/t.json 2>&1
        line="$line $w $(median /dev/shm/t.json)"
      done
    done
    echo "$line"
  done
else
  echo "device_compare.sh: checks or times, not '$mode'" >&2
  exit 2
fi
