#!/usr/bin/env bash
# A/B (the run of ab-h100.txt): HEAD 54255d5 (base-cli, built the same way) against the rounds update compiled per d (d <= 4) with 16-warp blocks two a multiprocessor (float).
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
printf "100 base-lloyd $b --solver lloyd\n100 new-lloyd - --solver lloyd\n100 base-hamerly $b --solver hamerly\n100 new-hamerly - --solver hamerly\n100 base-exponion $b --solver exponion\n100 new-exponion - --solver exponion\n" > $c/a.cfg
printf "1000 base-exponion $b --solver exponion\n1000 new-exponion - --solver exponion\n100 base-lloyd $b --solver lloyd\n100 new-lloyd - --solver lloyd\n" > $c/b.cfg
printf "100 base-lloyd $b --solver lloyd\n100 new-lloyd - --solver lloyd\n" > $c/l.cfg
for rep in 1 2 3; do
  export KMS_PHASE_KIND=blobs KMS_PHASE_ITER=14
  KMS_PHASE_N=10000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/a.cfg | grep "k="
  KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/b.cfg | grep "k="
  KMS_PHASE_N=1000000 KMS_PHASE_D=4 docs/lab/device-scripts/device_phases.sh $c/b.cfg | grep "k="
  KMS_PHASE_N=10000000 KMS_PHASE_D=1 docs/lab/device-scripts/device_phases.sh $c/l.cfg | grep "k="
  KMS_PHASE_N=10000000 KMS_PHASE_D=4 docs/lab/device-scripts/device_phases.sh $c/l.cfg | grep "k="
  KMS_PHASE_N=1000000 KMS_PHASE_D=8 docs/lab/device-scripts/device_phases.sh $c/l.cfg | grep "k="
done 2>&1 | tee $OUT/ab.txt
source docs/lab/device-scripts/device_common.sh > /dev/null
for d in 1 2 3 4; do
  $cli generate --generate blobs:n=2000000,d=$d,k=50 --seed 5 --out /dev/shm/f$d.npy > /dev/null
  for w in base new; do
    exe=$cli; [ $w = base ] && exe=$b
    $exe run --input /dev/shm/f$d.npy --k 150 --init random --seed 3 --backend cuda --precision f64 --max-iter 12 --tol 0 --report json --centroids-out /dev/shm/c-$w.csv > /dev/null
  done
  echo "f64 d=$d k=150: base $(md5sum < /dev/shm/c-base.csv | cut -c1-12) new $(md5sum < /dev/shm/c-new.csv | cut -c1-12)"
done 2>&1 | tee -a $OUT/ab.txt
