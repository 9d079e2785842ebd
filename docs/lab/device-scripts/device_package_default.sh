#!/usr/bin/env bash
# On the CUDA machine (issue 42: one GPU gives the CPU's bits by default at d > 4): the pack in
# .devcarry-pkg (docs/lab/device-scripts/device_pack.sh with KMS_DEVICE_CARRY=.devcarry-pkg; the
# build before the change beside it as bin/kmeans-cli-old), then the steps asked for:
#   check  correctness (small cases; may share the GPU): test_cuda_devices (splits, the default
#          one-device run against --devices 0 and the CPU, the walk making tree levels, streamed
#          chunks, Lloyd's and the bounded solvers'), the issue's example (10^6 x 16 blobs, k = 100, Hamerly f64: the default GPU run's
#          centroid file against the CPU's), compute-sanitizer memcheck of small CLI runs of each way
#          to the package sums;
#   paths  (device call 1, an experiment build with KMS_PACKAGE_PATH=walk|walk1|sub) the ways to the
#          package sums at 10^6 points under --devices 0 against the old build's own update
#          (--device 0) and its package update (--devices 0); centroid files cmp'd;
#   table  (alone on the GPU) the old build's default (--device 0) against this build's default,
#          f32 over every shape first, then f64.
# Data: blobs (100 centres) of 10^6 points, d in KMS_PKG_D ("8 16 32 64 128"), k in KMS_PKG_K
# ("10 100 1000"), Lloyd, random init, tol 0, KMS_PKG_STEPS (10) steps: medians of steps 3.. (total,
# assignment, update; ms). Stops starting runs after KMS_PKG_BUDGET seconds (200).
set -uo pipefail
export KMS_DEVICE_CARRY=.devcarry-pkg
source "$(dirname "$0")/device_common.sh"
record_device
old="$work/bin/kmeans-cli-old"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(check table)
t0=$(date +%s)
left() { [ $(( $(date +%s) - t0 )) -lt "${KMS_PKG_BUDGET:-200}" ]; }

# run TAG PATH EXE ARGS...: one timed run (KMS_PACKAGE_PATH=PATH; "" for none), its medians printed as
# "TAG {json}", its centroids in $work/c-TAG.csv.
run() {
  local tag=$1 path=$2 exe=$3; shift 3
  echo "$tag $(step_medians env KMS_PACKAGE_PATH="$path" "$exe" run --input "$x" --init random --seed 3 --backend cuda --solver lloyd \
    --max-iter "${KMS_PKG_STEPS:-10}" --tol 0 --centroids-out "$work/c-$tag.csv" "$@")"
}
same() { cmp -s "$work/c-$1.csv" "$work/c-$2.csv" && echo "  $1 = $2 (centroid files)" || echo "  $1 != $2 (centroid files DIFFER)"; }

for step in "${steps[@]}"; do
  case "$step" in
    check)
      KMS_GPU_TEST_SMALL=1 timeout 90 "$work/bin/test_cuda_devices" splitsGiveOneDevicesBits packageWalkMakesTreeLevels \
        streamedChunksGiveOneDevicesBits streamedBoundedSolversGiveTheResidentBits > "$out/tests-devices.log" 2>&1
      echo "test_cuda_devices (small): exit $?"; grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-devices.log" | cut -c1-300
      x=/dev/shm/kms-pkg-example.npy
      generate_points blobs 1000000 16 "$x"
      for where in cuda omp; do
        OMP_NUM_THREADS=4 timeout 30 "$cli" run --input "$x" --k 100 --solver hamerly --precision f64 --backend $where --init random --seed 4 \
          --centroids-out "$work/c-example-$where.csv" --labels-out "$work/l-example-$where.txt" --report json \
          > "$work/example-$where.json" 2>&1 || echo "example on $where: exit $?"
      done
      cmp "$work/c-example-cuda.csv" "$work/c-example-omp.csv" && cmp "$work/l-example-cuda.txt" "$work/l-example-omp.txt" &&
        echo "issue 42's example (10^6 x 16 blobs, k = 100, Hamerly f64): the default GPU run's centroid and label files = the CPU's"
      rm -f "$x"
      # memcheck: the package walk one package a thread (k = 100, d = 16), several (k = 256, d = 256:
      # 20 packages, 2 a thread), the sub-package walks (k = 4, d = 24), the rounds path (d = 6, f32).
      for shape in "16 100 f64" "256 256 f32" "24 4 f64" "6 20 f32"; do
        set -- $shape
        timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 "$cli" run --generate "blobs:n=20000,k=20,d=$1" \
          --seed 2 --k "$2" --precision "$3" --backend cuda --solver lloyd --init random --max-iter 3 --tol 0 > "$out/memcheck-d$1-k$2.log" 2>&1
        echo "compute-sanitizer memcheck kmeans-cli d=$1 k=$2 $3: exit $? ($(grep -c "Invalid\|ERROR SUMMARY: [1-9]" "$out/memcheck-d$1-k$2.log") error lines)"
      done ;;
    paths|table)
      for p in f32 f64; do
        for d in ${KMS_PKG_D:-8 16 32 64 128}; do
          left || { echo "budget spent: stopped before $p d=$d"; break 2; }
          x=/dev/shm/kms-pkg-$d.npy
          [ -f "$x" ] || generate_points blobs 1000000 "$d" "$x" || continue
          for k in ${KMS_PKG_K:-10 100 1000}; do
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
            fi
          done
        done
      done 2>&1 | tee "$out/$step.txt"
      rm -f /dev/shm/kms-pkg-*.npy ;;
  esac
done
echo "elapsed $(( $(date +%s) - t0 )) s"
