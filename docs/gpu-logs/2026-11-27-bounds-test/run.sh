#!/usr/bin/env bash
# Run record (2026-11-27): Hamerly's test as one kernel of four points a thread
# (bounds_test_kernel) for Hamerly at large k, Yinyang and Exponion. Checks: the CUDA
# suites; compute-sanitizer on the three solvers' bounds path; every iteration record
# (times left out) and centroid file of base and new, f32 and f64.
# Then steps 21-60 of 60, base and new alternating three times (median of each run).
# Usage: run.sh checks|times
set -u
mode=$1
export OUT=${OUT:-$PWD/device-out}
source scripts/device_common.sh > /dev/null
base=$work/base-cli  # the base build's CLI, carried xz-compressed beside the pack
xz -dc "$root/.devcarry-gpu/base-cli.xz" > "$base" && chmod +x "$base"
record_device
median() {  # FILE: median step (us) of steps 21-60
  python3 -c "
import json,statistics,sys
it=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{\"type\":\"iteration\"')]
print(f'{statistics.median(r[\"time_total_ms\"] for r in it[20:60])*1000:.1f}')" "$1"
}
if [ "$mode" = checks ] && [ -z "${KMS_BITS_ONLY:-}" ]; then  # KMS_BITS_ONLY=1: the comparison alone
(cd "$work/bin" && for t in test_cuda_solvers test_cuda_devices test_cuda_weights test_cuda_init test_gpu_scores; do
  echo "$t: $(timeout 600 ./$t 2>&1 | grep -E '^Totals|FAIL' | tr '\n' ' ')"; done)
$cli generate --generate blobs:n=30000,d=2,k=40 --seed 5 --out /dev/shm/s2.npy > /dev/null
for sk in "hamerly 1000" "hamerly 100" "exponion 300" "yinyang 300"; do
  set -- $sk
  for tool in memcheck racecheck; do
    echo "$tool $1 k=$2: $(compute-sanitizer --tool $tool --print-limit 5 $cli run --input /dev/shm/s2.npy --k $2 --solver $1 \
      --backend cuda --init random --seed 3 --max-iter 6 --tol 0 --report json 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tr '\n' ' ')"
  done
done
fi
if [ "$mode" = checks ]; then
same=0; differ=0
for d in 2 16 40; do
  $cli generate --generate blobs:n=200000,d=$d,k=50 --seed 5 --out /dev/shm/f$d.npy > /dev/null
  for k in 5 100 1000 1024 1025; do
    for s in hamerly exponion yinyang; do
      for p in f32 f64; do
        for w in base new; do
          exe=$cli; [ $w = base ] && exe=$base
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
fi
if [ "$mode" = times ]; then
for shape in "10000000 2 100 hamerly" "10000000 2 100 exponion" "10000000 2 100 yinyang" "10000000 2 100 lloyd" \
             "1000000 2 100 hamerly" "1000000 2 1000 exponion" "1000000 2 1000 hamerly" "1000000 16 1000 exponion" \
             "1000000 64 100 yinyang"; do
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
fi
