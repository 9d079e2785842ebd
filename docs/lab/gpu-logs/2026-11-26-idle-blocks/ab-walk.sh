#!/usr/bin/env bash
# A/B: base (base-cli, a456843) against the new build, Exponion and Hamerly, three shapes (steps 2-12), two repeats; then late steps.
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
for k in 100 1000; do printf "$k base-exponion $b --solver exponion\n$k new-exponion - --solver exponion\n" > $c/e$k.cfg; done
export KMS_PHASE_ITER=12
for rep in 1 2; do
  echo "## rep $rep: 10^6 x 2, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/e1000.cfg | grep "k="
  echo "## rep $rep: 10^6 x 2, k = 1000, uniform"; KMS_PHASE_KIND=uniform KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/e1000.cfg | grep "k="
  echo "## rep $rep: 10^6 x 4, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=4 docs/lab/device-scripts/device_phases.sh $c/e1000.cfg | grep "k="
  echo "## rep $rep: 10^6 x 16, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=16 docs/lab/device-scripts/device_phases.sh $c/e1000.cfg | grep "k="
  echo "## rep $rep: 10^6 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/e100.cfg | grep "k="
  echo "## rep $rep: 10^7 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=10000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/e100.cfg | grep "k="
done 2>&1 | tee $OUT/ab-walk.txt
KMS_LATE_N=1000000 KMS_LATE_D=2 KMS_LATE_K=1000 docs/lab/device-scripts/device_late_steps.sh exponion 2>&1 | tee $OUT/late-walk.txt
