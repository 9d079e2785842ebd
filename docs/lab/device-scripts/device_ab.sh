#!/usr/bin/env bash
# On the CUDA machine: A/B timing of two packed benchmark builds, interleaved
# (A, B, A, B, ...) so drift hits both alike, plus the GPU tests and
# compute-sanitizer racecheck/memcheck over the solver suite (small cases).
# Pack first: copy the "before" bench binary into BUILD/bench/bench_cuda_solvers_before,
# then docs/lab/device-scripts/device_pack.sh BUILD.
# Usage: docs/lab/device-scripts/device_ab.sh REPEATS WORKLOAD... ; logs in ${OUT:-./device-out}
set -uo pipefail
repeats=${1:?repeats}; shift
source "$(dirname "$0")/device_common.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/device.txt"
"$work/bin/test_cuda_solvers" > "$out/tests.log" 2>&1; echo "test_cuda_solvers: exit $?"; tail -2 "$out/tests.log"
grep -h "differed" "$out/tests.log" | head -3
"$work/bin/test_cuda_init" >> "$out/tests.log" 2>&1; echo "test_cuda_init: exit $?"; tail -2 "$out/tests.log"
for workload in "$@"; do
  for ((r = 1; r <= repeats; ++r)); do
    for bin in bench_cuda_solvers_before bench_cuda_solvers; do
      [ -x "$work/bin/$bin" ] || continue
      echo "=== $bin $workload run $r" >> "$out/bench.log"
      "$work/bin/$bin" --only "$workload" >> "$out/bench.log" 2>&1
      echo "$bin $workload run $r: $(grep -E '^lloyd/cuda-global/f32/bauto' "$out/bench.log" | tail -1)"
    done
  done
done
for tool in racecheck memcheck; do
  KMS_GPU_TEST_SMALL=1 timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 9 \
    "$work/bin/test_cuda_solvers" > "$out/sanitizer-$tool.log" 2>&1
  echo "compute-sanitizer $tool test_cuda_solvers: exit $?"; tail -3 "$out/sanitizer-$tool.log"
done
