#!/usr/bin/env bash
# The per-step table of docs/gpu-benchmark.md at 9e24e3c: four solvers at six shapes (steps 2-12, blobs unless said).
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
for k in 100 1000; do printf "$k lloyd - --solver lloyd\n$k hamerly - --solver hamerly\n$k exponion - --solver exponion\n$k yinyang - --solver yinyang\n" > $c/k$k.cfg; done
export KMS_PHASE_ITER=12
{
echo "## 10^6 x 1, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=1 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
echo "## 10^6 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
echo "## 10^6 x 2, k = 1000"; KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
echo "## 10^6 x 2, k = 1000, uniform"; KMS_PHASE_KIND=uniform KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
echo "## 10^6 x 4, k = 1000"; KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=4 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
echo "## 10^7 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=10000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
} 2>&1 | tee $OUT/table.txt
