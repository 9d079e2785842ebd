#!/usr/bin/env bash
# Run record (2026-11-27): the CUDA tests, compute-sanitizer on every solver that lists
# points (racecheck: the block append's shared offsets), and f64 centroid files of base and new.
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
cd "$work/bin"
{
for t in test_cuda_solvers test_cuda_devices test_cuda_weights; do timeout 300 ./$t 2>&1 | grep -E "^Totals|FAIL" ; done
for dk in "2 300" "16 300" "2 1000"; do
  set -- $dk
  [ -f /dev/shm/s$1.npy ] || $cli generate --generate blobs:n=20000,d=$1,k=40 --seed 5 --out /dev/shm/s$1.npy > /dev/null
  for s in exponion hamerly yinyang elkan; do
    for tool in memcheck racecheck; do
      printf "%-9s %-9s d=%-2s k=%-4s " $tool $s $1 $2
      compute-sanitizer --tool $tool --print-limit 5 $cli run --input /dev/shm/s$1.npy --k $2 --solver $s --backend cuda \
        --init random --seed 3 --max-iter 6 --tol 0 --report json 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | head -2 | tr '\n' ' '
      echo
    done
  done
done
for d in 2 16; do
  $cli generate --generate blobs:n=500000,d=$d,k=50 --seed 5 --out /dev/shm/f$d.npy > /dev/null
  for s in exponion hamerly yinyang elkan; do
    for w in base new; do
      exe=$cli; [ $w = base ] && exe=$root/.devcarry-gpu/base-cli
      $exe run --input /dev/shm/f$d.npy --k 700 --init random --seed 3 --backend cuda --precision f64 --solver $s --max-iter 12 --tol 0 --report json --centroids-out /dev/shm/c-$w.csv > /dev/null
    done
    echo "f64 d=$d $s k=700: base $(md5sum < /dev/shm/c-base.csv | cut -c1-12) new $(md5sum < /dev/shm/c-new.csv | cut -c1-12)"
  done
done
} 2>&1 | tee $OUT/checks.txt
