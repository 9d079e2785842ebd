#!/usr/bin/env bash
# Probe 3 (switch since removed): 1 or 4 lanes a point at 8-D and 16-D; base = a456843. Exponion, steps 2-12.
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
printf "1000 base $b --solver exponion\n" > $c/b1000.cfg; printf "1000 new - --solver exponion\n" > $c/n1000.cfg
export KMS_PHASE_ITER=12
for rep in 1 2; do for d in 8 16; do
  echo "## blobs 10^6 x $d, k = 1000"
  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=$d docs/lab/device-scripts/device_phases.sh $c/b1000.cfg | grep "k="
  for l in 1 4; do KMS_PROBE_WALK_LANES=$l KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=$d docs/lab/device-scripts/device_phases.sh $c/n1000.cfg | grep "k=" | sed "s/new /lanes$l/"; done
done; done 2>&1 | tee $OUT/walk-probe3.txt
