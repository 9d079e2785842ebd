#!/usr/bin/env bash
# On the CUDA machine: unpack .devcarry-gpu/pack.tar.xz (docs/lab/device-scripts/device_pack.sh)
# and run the GPU tests, compute-sanitizer over the small test cases, and the
# benchmark. Logs go to ${OUT:-./device-out}.
# Usage: docs/lab/device-scripts/device_run.sh [tests] [sanitize] [bench]   (default: all three)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests sanitize bench)
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/device.txt"
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      "$work/bin/test_cuda_solvers" 2>&1 | tee "$out/tests.log" | tail -40
      "$work/bin/test_cuda_init" 2>&1 | tee "$out/tests-init.log" | tail -8
      "$work/bin/test_gpu_scores" 2>&1 | tee "$out/tests-scores.log" | tail -8
      # The CLI end to end on the GPU: fit layer (GPU initialiser, restarts), predict, silhouette.
      "$cli" generate --generate blobs:n=1000000,k=100,d=16 --seed 4 --out "$work/x.npy" >/dev/null
      for where in omp cuda; do
        "$cli" run --input "$work/x.npy" --k 100 --n-init 2 --seed 4 --backend $where --precision f64 --report json \
          --centroids-out "$work/c-$where.csv" --labels-out "$work/l-$where.txt" | tail -1 | cut -c1-400
        "$cli" predict --input "$work/x.npy" --centroids "$work/c-$where.csv" --backend $where --precision f64 \
          --labels-out "$work/p-$where.txt" --report json
      done
      cmp "$work/l-omp.txt" "$work/l-cuda.txt" && cmp "$work/p-cuda.txt" "$work/l-cuda.txt" && \
        echo "CLI f64: cuda labels = omp labels; predict on the run's centroids = the run's labels" ;;
    sanitize)
      # memcheck per suite; racecheck per test function, in parallel (the whole
      # solver suite takes > 230 s under racecheck, one function ~200 s).
      for suite in test_cuda_solvers test_cuda_init test_gpu_scores; do
        KMS_GPU_TEST_SMALL=1 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
          "$work/bin/$suite" > "$out/sanitizer-memcheck-$suite.log" 2>&1
        echo "compute-sanitizer memcheck $suite: exit $?"; tail -2 "$out/sanitizer-memcheck-$suite.log"
      done
      functions=$("$work/bin/test_cuda_solvers" -functions 2>/dev/null | sed 's/()$//')
      for f in $functions; do
        ( KMS_GPU_TEST_SMALL=1 timeout 420 compute-sanitizer --tool racecheck --error-exitcode 9 \
            "$work/bin/test_cuda_solvers" "$f" > "$out/sanitizer-racecheck-$f.log" 2>&1
          echo "compute-sanitizer racecheck test_cuda_solvers $f: exit $?"; tail -1 "$out/sanitizer-racecheck-$f.log" ) &
      done
      ( KMS_GPU_TEST_SMALL=1 timeout 420 compute-sanitizer --tool racecheck --error-exitcode 9 \
          "$work/bin/test_cuda_init" > "$out/sanitizer-racecheck-test_cuda_init.log" 2>&1
        echo "compute-sanitizer racecheck test_cuda_init: exit $?"; tail -1 "$out/sanitizer-racecheck-test_cuda_init.log" ) &
      wait ;;
    bench)
      if [ -x "$work/bin/bench_cuda_solvers" ]; then
        "$work/bin/bench_cuda_solvers" --json "$out/bench.json" 2>&1 | tee "$out/bench.log"
      fi
      if [ -f "$root/bench/gpu/reference_kmeans.py" ]; then
        PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/reference_kmeans.py" 2>&1 | tee "$out/reference.log"
      fi ;;
  esac
done
