#!/usr/bin/env bash
# Probe (switch since removed): the walk with 1, 4 or 8 lanes a point (KMS_PROBE_WALK_LANES), the cheap
# "full" test in all; base = a456843. Exponion, steps 2-12.
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
for k in 100 1000; do printf "$k base $b --solver exponion\n" > $c/b$k.cfg; printf "$k new - --solver exponion\n" > $c/n$k.cfg; done
export KMS_PHASE_ITER=12
shape() {  # kind n d k
  echo "## $1 $2 x $3, k = $4"
  KMS_PHASE_KIND=$1 KMS_PHASE_N=$2 KMS_PHASE_D=$3 docs/lab/device-scripts/device_phases.sh $c/b$4.cfg | grep "k="
  for l in 1 4 8; do KMS_PROBE_WALK_LANES=$l KMS_PHASE_KIND=$1 KMS_PHASE_N=$2 KMS_PHASE_D=$3 docs/lab/device-scripts/device_phases.sh $c/n$4.cfg | grep "k=" | sed "s/new /lanes$l/"; done
}
{
shape blobs 1000000 2 1000; shape uniform 1000000 2 1000; shape blobs 1000000 4 1000; shape blobs 1000000 8 1000
shape blobs 1000000 16 1000; shape blobs 1000000 64 1000; shape blobs 1000000 2 100; shape blobs 10000000 2 100
} 2>&1 | tee $OUT/walk-probe.txt
