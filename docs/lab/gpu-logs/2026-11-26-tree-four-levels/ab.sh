#!/usr/bin/env bash
# A/B: base (base-cli, c9fc86c) against the package tree's levels four to a launch; tests first.
set -u
export OUT=${OUT:-$PWD/device-out}
c=.devcarry-gpu
b=$PWD/$c/base-cli
( source docs/lab/device-scripts/device_common.sh > /dev/null; cd "$work/bin"
  for t in test_cuda_devices test_cuda_solvers test_cuda_weights; do timeout 200 ./$t 2>&1 | grep -E "^Totals|FAIL"; done ) 2>&1 | tee $OUT/tests.txt
printf "100 base-lloyd $b --solver lloyd\n100 new-lloyd - --solver lloyd\n100 base-hamerly $b --solver hamerly\n100 new-hamerly - --solver hamerly\n" > $c/k100.cfg
printf "1000 base-exponion $b --solver exponion\n1000 new-exponion - --solver exponion\n1000 base-lloyd $b --solver lloyd\n1000 new-lloyd - --solver lloyd\n" > $c/k1000.cfg
export KMS_PHASE_ITER=12
for rep in 1 2; do
  echo "## rep $rep: 10^6 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
  echo "## rep $rep: 10^6 x 2, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
  echo "## rep $rep: 10^6 x 4, k = 1000";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=4 docs/lab/device-scripts/device_phases.sh $c/k1000.cfg | grep "k="
  echo "## rep $rep: 10^7 x 2, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=10000000 KMS_PHASE_D=2 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
  echo "## rep $rep: 10^6 x 16, k = 100";  KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=16 docs/lab/device-scripts/device_phases.sh $c/k100.cfg | grep "k="
done 2>&1 | tee $OUT/ab.txt
