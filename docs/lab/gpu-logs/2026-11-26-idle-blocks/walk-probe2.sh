#!/usr/bin/env bash
# Probe 2 (switches since removed): one lane with the binary search (KMS_PROBE_BSEARCH) or the two-entry test;
# the default lanes (1 for d <= 4, 4 below 32, 8 from 32); base = a456843. Exponion, steps 2-12.
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
for k in 100 1000; do printf "$k base $b --solver exponion\n" > $c/b$k.cfg; printf "$k new - --solver exponion\n" > $c/n$k.cfg; done
export KMS_PHASE_ITER=12
shape() {  # kind n d k
  echo "## $1 $2 x $3, k = $4"
  KMS_PHASE_KIND=$1 KMS_PHASE_N=$2 KMS_PHASE_D=$3 docs/lab/device-scripts/device_phases.sh $c/b$4.cfg | grep "k="
  KMS_PROBE_BSEARCH=1 KMS_PHASE_KIND=$1 KMS_PHASE_N=$2 KMS_PHASE_D=$3 docs/lab/device-scripts/device_phases.sh $c/n$4.cfg | grep "k=" | sed "s/new /bsearch/"
  KMS_PHASE_KIND=$1 KMS_PHASE_N=$2 KMS_PHASE_D=$3 docs/lab/device-scripts/device_phases.sh $c/n$4.cfg | grep "k=" | sed "s/new /default/"
  [ "$3" -ge 5 ] && [ "$3" -le 8 ] && for l in 1 4; do KMS_PROBE_WALK_LANES=$l KMS_PHASE_KIND=$1 KMS_PHASE_N=$2 KMS_PHASE_D=$3 docs/lab/device-scripts/device_phases.sh $c/n$4.cfg | grep "k=" | sed "s/new /lanes$l/"; done
}
{
for rep in 1 2; do
shape blobs 1000000 2 1000; shape uniform 1000000 2 1000; shape blobs 1000000 4 1000; shape blobs 1000000 6 1000
shape blobs 1000000 2 100; shape blobs 10000000 2 100
done
} 2>&1 | tee $OUT/walk-probe2.txt
