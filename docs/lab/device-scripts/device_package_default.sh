#!/usr/bin/env bash
# On the CUDA machine (issue 42: one GPU gives the CPU's bits by default at d > 4): the pack in
# .devcarry-pkg (docs/lab/device-scripts/device_pack.sh with KMS_DEVICE_CARRY=.devcarry-pkg; the
# build before the change beside it as bin/kmeans-cli-old), then the steps asked for:
#   tests  test_cuda_devices (splits, the default one-device run against --devices 0 and the CPU)
#          and test_cuda_solvers' CPU-equality cases;
#   paths  the package update's ways to the sums at 10^6 points (an experiment build's
#          KMS_PACKAGE_PATH=walk|walk1|sub: the package walk, without the tree levels made in
#          it, the sub-package walk), each under --devices 0, against the old build's own
#          update (--device 0) and its package update (--devices 0); centroid files cmp'd;
#   table  the old build's default (--device 0) against this build's default (interleaved:
#          old, new, old), and both defaults' centroid files against the old build's
#          --devices 0 (the CPU's bits): cmp.
# Data: blobs (100 centres) of 10^6 points, d in KMS_PKG_D ("8 16 32 64 128"), k in KMS_PKG_K
# ("10 100 1000"), f32 and f64, Lloyd, random init, tol 0, 10 steps: medians of steps 3..10
# (total, assignment, update; ms). Stops starting runs after KMS_PKG_BUDGET seconds (200).
set -uo pipefail
export KMS_DEVICE_CARRY=.devcarry-pkg
source "$(dirname "$0")/device_common.sh"
record_device
old="$work/bin/kmeans-cli-old"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests table)
t0=$(date +%s)
left() { [ $(( $(date +%s) - t0 )) -lt "${KMS_PKG_BUDGET:-200}" ]; }

# run TAG PATH EXE ARGS...: one timed run (KMS_PACKAGE_PATH=PATH; "" for none), its medians printed as
# "TAG {json}", its centroids in $work/c-TAG.csv.
run() {
  local tag=$1 path=$2 exe=$3; shift 3
  echo "$tag $(step_medians env KMS_PACKAGE_PATH="$path" "$exe" run --input "$x" --init random --seed 3 --backend cuda --solver lloyd \
    --max-iter 10 --tol 0 --centroids-out "$work/c-$tag.csv" "$@")"
}
same() { cmp -s "$work/c-$1.csv" "$work/c-$2.csv" && echo "  $1 = $2 (centroid files)" || echo "  $1 != $2 (centroid files DIFFER)"; }

for step in "${steps[@]}"; do
  case "$step" in
    tests)
      timeout 150 "$work/bin/test_cuda_devices" splitsGiveOneDevicesBits > "$out/tests-devices.log" 2>&1
      echo "test_cuda_devices splitsGiveOneDevicesBits: exit $?"; grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-devices.log" | cut -c1-300
      timeout 100 "$work/bin/test_cuda_solvers" doubleMatchesCpuLloyd floatMatchesLloydAndCpu fitLayerMatchesCpu \
        > "$out/tests-solvers.log" 2>&1
      echo "test_cuda_solvers (CPU-equality cases): exit $?"; grep -E "FAIL|Totals|Loc" "$out/tests-solvers.log" | cut -c1-300 ;;
    tests-small)  # the experiment build's two walks over the suite's small cases
      for path in walk walk1 sub; do
        KMS_PACKAGE_PATH=$path KMS_GPU_TEST_SMALL=1 timeout 30 "$work/bin/test_cuda_devices" splitsGiveOneDevicesBits packageWalkMakesTreeLevels \
          > "$out/tests-small-$path.log" 2>&1
        echo "KMS_PACKAGE_PATH=$path test_cuda_devices (small): exit $?"; grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-small-$path.log" | cut -c1-300
      done ;;
    paths|table)
      for d in ${KMS_PKG_D:-8 16 32 64 128}; do
        left || { echo "budget spent: stopped before d=$d"; break; }
        x=/dev/shm/kms-pkg-$d.npy
        generate_points blobs 1000000 "$d" "$x" || continue
        for k in ${KMS_PKG_K:-10 100 1000}; do
          for p in f32 f64; do
            left || break
            s="d$d-k$k-$p"
            if [ "$step" = paths ]; then
              run "$s-own" "" "$old" --k "$k" --precision $p --device 0
              run "$s-pkg-old" "" "$old" --k "$k" --precision $p --devices 0
              run "$s-walk" walk "$cli" --k "$k" --precision $p --devices 0
              [ "$k" -le 100 ] && run "$s-sub" sub "$cli" --k "$k" --precision $p --devices 0
              # Where the walk makes the tree's first levels (2^21 or more package sums): also without.
              [ $((245 * k * d)) -ge 2097152 ] && run "$s-walk1" walk1 "$cli" --k "$k" --precision $p --devices 0
              same "$s-walk" "$s-pkg-old"; [ "$k" -le 100 ] && same "$s-sub" "$s-pkg-old"
              [ $((245 * k * d)) -ge 2097152 ] && same "$s-walk1" "$s-pkg-old"
            else
              run "$s-before" "" "$old" --k "$k" --precision $p --device 0
              run "$s-after" "" "$cli" --k "$k" --precision $p --device 0
              run "$s-before" "" "$old" --k "$k" --precision $p --device 0 | sed 's/^/again /'
              run "$s-pkg-old" "" "$old" --k "$k" --precision $p --devices 0
              same "$s-after" "$s-pkg-old"; same "$s-before" "$s-pkg-old"
            fi
          done
        done
        rm -f "$x"
      done 2>&1 | tee "$out/$step.txt" ;;
  esac
done
echo "elapsed $(( $(date +%s) - t0 )) s"
