#!/usr/bin/env bash
# A/B: base (base-cli, HEAD a456843) against idle blocks leaving early (walk, tiled and
# low-d searches) and Exponion's nearest separations taken from its rows kernel.
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
for k in 100 1000; do
  : > $c/k$k.cfg
  for s in exponion hamerly yinyang; do printf "$k base-$s $b --solver $s\n$k new-$s - --solver $s\n" >> $c/k$k.cfg; done
done
export KMS_PHASE_ITER=12
for rep in 1 2; do
  echo "## rep $rep: 10^6 x 2, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
  echo "## rep $rep: 10^6 x 2, k = 1000, uniform"; KMS_PHASE_KIND=uniform KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
  echo "## rep $rep: 10^6 x 4, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=4 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
  echo "## rep $rep: 10^7 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=10000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
done 2>&1 | tee $OUT/ab.txt
# To convergence's late steps (300 steps), 10^6 x 2-D blobs, k = 1000.
for w in base new; do
  cliw=; [ $w = base ] && cliw=$b
  echo "## $w"; KMS_CLI=$cliw KMS_LATE_N=1000000 KMS_LATE_D=2 KMS_LATE_K=1000 docs/lab/device-scripts/device_late_steps.sh exponion hamerly
done 2>&1 | tee $OUT/late.txt
