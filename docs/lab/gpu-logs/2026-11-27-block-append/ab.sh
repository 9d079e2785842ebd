#!/usr/bin/env bash
# Run record (2026-11-27): one list atomic per block instead of per warp. Base (base-cli,
# e17e207) against the change in one session: steps 2-12 of four bounded solvers and Lloyd,
# then whole runs (late steps), then the tests, the sanitizers and f64 bits.
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
for k in 100 1000; do
  : > $c/k$k.cfg
  for s in lloyd exponion hamerly yinyang elkan; do printf "$k base-$s $b --solver $s\n$k new-$s - --solver $s\n" >> $c/k$k.cfg; done
done
export KMS_PHASE_ITER=12
{
echo "## 10^6 x 2, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
echo "## 10^6 x 2, k = 1000, uniform"; KMS_PHASE_KIND=uniform KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
echo "## 10^6 x 16, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=16 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
echo "## 10^7 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=10000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
echo "## 10^7 x 2, k = 100, uniform";  KMS_PHASE_KIND=uniform KMS_PHASE_N=10000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
} 2>&1 | tee $OUT/ab.txt
for w in base new; do
  cliw=; [ $w = base ] && cliw=$b
  echo "## $w, 10^6 x 2, k = 1000"; KMS_CLI=$cliw KMS_LATE_N=1000000 KMS_LATE_D=2 KMS_LATE_K=1000 docs/lab/device-scripts/device_late_steps.sh exponion hamerly auto
  echo "## $w, 10^7 x 2, k = 100"; KMS_CLI=$cliw KMS_LATE_N=10000000 KMS_LATE_D=2 KMS_LATE_K=100 KMS_LATE_ITER=150 docs/lab/device-scripts/device_late_steps.sh hamerly exponion lloyd auto
done 2>&1 | grep -v "^\s*\[1-1\]" | tee $OUT/late.txt
