#!/usr/bin/env bash
# On the CUDA machine: issue 37's high-d map. Our Lloyd step (f32) with the GEMM filter in
# its two formats (tf32, the default; int8 by KMS_GEMM_FORMAT), the exact kernel alone
# (--gemm-filter off) and --solver auto, against PyTorch (exact FP32; compiled TF32, inexact)
# and flash-kmeans (its public source carried in .devcarry-flash, never committed) on the
# same points and initial centroids (the highd suite of scripts/bench.sh). Unpacks
# .devcarry-gpu/pack.tar.xz (docs/lab/device-scripts/device_pack.sh).
# Usage: OUT=DIR docs/lab/device-scripts/device_highd.sh [checks] [bench]   (default: both)
#   checks: the filter's tests in both formats, the lockstep suites, compute-sanitizer
#     memcheck and racecheck on the filter kernels (small cases) → DIR/checks.txt.
#   profile: ncu's kernel durations and tensor-pipe activity of two steps at 10^6 × 128,
#     k = 1024, uniform and blobs (tf32 filter) → DIR/profile.txt.
#   bench: `scripts/bench.sh highd --device-only` (its GPU rows; KMS_HIGHD_D="16 32 64 128 256",
#     KMS_HIGHD_K="100 1000", KMS_HIGHD_DATA="blobs uniform", KMS_HIGHD_N=1000000,
#     KMS_HIGHD_EXTRA="uniform:1000000:128:1024 blobs:4000000:128:1024" narrow or widen it)
#     → DIR/highd/report.md, highd.json; KMS_HIGHD_QUICK=1 adds --quick.
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(checks profile bench)
record_device > /dev/null

checks() {
  local bin=$work/bin
  for f in gemmFilterPath doubleMatchesCpuLloyd floatMatchesLloydAndCpu \
           "smallKMatchesExact lloydStatisticsAndStop fitLayerMatchesCpu autoRacesOnTheData errors"; do
    (timeout 500 "$bin/test_cuda_solvers" $f > "$out/solvers-${f%% *}.log" 2>&1; echo "test_cuda_solvers $f: exit $?") &
  done
  for tool in memcheck racecheck; do
    (KMS_GPU_TEST_SMALL=1 timeout 500 compute-sanitizer --tool $tool --kernel-name kns=filter_kernel --error-exitcode 9 \
       "$bin/test_cuda_solvers" gemmFilterPath > "$out/$tool.log" 2>&1
     echo "compute-sanitizer $tool (filter_kernel, gemmFilterPath, small): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log" | head -1)") &
  done
  (KMS_GPU_TEST_SMALL=1 timeout 500 compute-sanitizer --tool memcheck --kernel-name kns=quantise_rows_kernel --error-exitcode 9 \
     "$bin/test_cuda_solvers" gemmFilterPath > "$out/memcheck-rows.log" 2>&1
   echo "compute-sanitizer memcheck (quantise_rows_kernel, small): exit $? $(grep -E 'ERROR SUMMARY' "$out/memcheck-rows.log")") &
  wait
  grep -h -E "^Totals|FAIL|differ" "$out"/solvers-*.log | head -40
}

profile() {
  local ncu kind x
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  for kind in uniform blobs; do
    x="$work/profile-$kind.npy"
    generate_points "$kind" 1000000 128 "$x" || continue
    echo "== $kind 10^6 x 128, k = 1024, f32, cuda-shared (tf32 filter), launches of steps 4-5:"
    "$ncu" --clock-control none --metrics gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum \
      --launch-skip 25 --launch-count 14 "$cli" run --input "$x" --k 1024 --init random --seed 3 --solver lloyd \
      --backend cuda --variant shared --precision f32 --max-iter 6 --tol 0 2>&1 |
      grep -E "^  [A-Za-z_].*\(|gpu__time|hmma|bank_conflicts|inst_executed"
  done
}

# The highd suite's GPU rows (bench/suites/suites.py: suite_highd) with the packed binaries,
# flash-kmeans from .devcarry-flash; report in DIR/highd/report.md.
bench() {
  KMS_CLI=$cli KMS_BENCH_CEILING=$work/bin/bench_ceiling KMS_BENCH_CUDA=$work/bin/bench_cuda_solvers \
    KMS_PYTHON=python3 KMS_FLASH_KMEANS="$root/.devcarry-flash" \
    "$root/scripts/bench.sh" highd --device-only --out "$out/highd" "$@"
}

for step in "${steps[@]}"; do
  case "$step" in
    checks) checks 2>&1 | tee "$out/checks.txt" ;;
    profile) profile 2>&1 | tee "$out/profile.txt" ;;
    bench) bench ${KMS_HIGHD_QUICK:+--quick} 2>&1 | tee "$out/highd.txt" ;;
    *) echo "device_highd.sh: checks, profile or bench, not '$step'" >&2; exit 2 ;;
  esac
done
