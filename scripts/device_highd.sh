#!/usr/bin/env bash
# On the CUDA machine: issue 37's high-d map. Our Lloyd step (f32) with the GEMM filter in
# its two formats (tf32, the default; int8 by KMS_GEMM_FORMAT), the exact kernel alone
# (--gemm-filter off) and --solver auto, against PyTorch (exact FP32; compiled TF32, inexact)
# and flash-kmeans (its public source carried in .devcarry-flash, never committed) on the
# same points and initial centroids (bench/gpu/highd_peers.py). Unpacks
# .devcarry-gpu/pack.tar.xz (scripts/device_pack.sh).
# Usage: OUT=DIR scripts/device_highd.sh [checks] [bench]   (default: both)
#   checks: the filter's tests in both formats, the lockstep suites, compute-sanitizer
#     memcheck and racecheck on the filter kernels (small cases) → DIR/checks.txt.
#   profile: ncu's kernel durations and tensor-pipe activity of two steps at 10^6 × 128,
#     k = 1024, uniform and blobs (tf32 filter) → DIR/profile.txt.
#   bench: KMS_HIGHD_D="16 32 64 128 256", KMS_HIGHD_K="100 1000", KMS_HIGHD_DATA="blobs
#     uniform", KMS_HIGHD_N=1000000, KMS_HIGHD_EXTRA="uniform:1000000:128:1024
#     blobs:4000000:128:1024" → DIR/highd.txt (the table last), DIR/highd.json.
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

# One run's medians over steps 3..: total, assign, update ms, and the shares of the points the
# filter certified and verified (median of gemm_certified / n, verified_points / n).
medians() {
  "$@" --report json 2>/dev/null | python3 -c '
import json, statistics, sys
its = [json.loads(l) for l in sys.stdin if l.startswith("{")]
its = [r for r in its if r.get("type") == "iteration"][2:]
n = float(sys.argv[1])
med = lambda f: round(statistics.median(f(r) for r in its), 4)
print(json.dumps({"total": med(lambda r: r["time_total_ms"]), "assign": med(lambda r: r["time_assign_ms"]),
                  "update": med(lambda r: r["time_update_ms"]), "certified": med(lambda r: r.get("gemm_certified", 0) / n),
                  "verified": med(lambda r: r.get("verified_points", 0) / n), "steps": len(its)} if its else {"failed": True}))' "$n"
}

job() {  # KIND N D K
  local kind=$1 n=$2 d=$3 k=$4 x c0 run exact tf32 int8 auto
  x="$work/$kind-$n-$d.npy"
  [ -f "$x" ] || generate_points "$kind" "$n" "$d" "$x" || return
  c0="$work/$kind-$n-$d-$k-c0.npy"  # k distinct rows (seed 3): ours and the peers start from these
  python3 -c "import numpy as np; x = np.load('$x', mmap_mode='r'); r = np.random.default_rng(3).choice(len(x), $k, replace=False); np.save('$c0', np.ascontiguousarray(x[np.sort(r)]))"
  run=("$cli" run --input "$x" --k "$k" --init "$c0" --backend cuda --precision f32 --max-iter 12 --tol 0)
  exact=$(medians "${run[@]}" --solver lloyd --variant shared --gemm-filter off)
  tf32=$(medians "${run[@]}" --solver lloyd --variant shared)
  int8=$(KMS_GEMM_FORMAT=int8 medians "${run[@]}" --solver lloyd --variant shared)
  auto=$(medians "${run[@]}" --solver auto)
  echo "$kind n=$n d=$d k=$k: exact $exact | tf32 $tf32 | int8 $int8 | auto $auto"
  echo "$kind,n=$n,d=$d,k=$k $x $c0 {\"exact\": $exact, \"tf32\": $tf32, \"int8\": $int8, \"auto\": $auto}" >> "$work/jobs.txt"
}

bench() {
  local ds=${KMS_HIGHD_D:-"16 32 64 128 256"} ks=${KMS_HIGHD_K:-"100 1000"} kinds=${KMS_HIGHD_DATA:-"blobs uniform"}
  local n=${KMS_HIGHD_N:-1000000} extra=${KMS_HIGHD_EXTRA:-"uniform:1000000:128:1024 blobs:4000000:128:1024"}
  local kind d k e
  : > "$work/jobs.txt"
  for kind in $kinds; do
    for d in $ds; do
      for k in $ks; do job "$kind" "$n" "$d" "$k"; done
    done
  done
  for e in $extra; do
    IFS=: read -r kind n d k <<< "$e"
    job "$kind" "$n" "$d" "$k"
  done
  PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/highd_peers.py" --jobs "$work/jobs.txt" --json "$out/highd.json" \
    --flash "$root/.devcarry-flash"
}

for step in "${steps[@]}"; do
  case "$step" in
    checks) checks 2>&1 | tee "$out/checks.txt" ;;
    profile) profile 2>&1 | tee "$out/profile.txt" ;;
    bench) bench 2>&1 | tee "$out/highd.txt" ;;
    *) echo "device_highd.sh: checks, profile or bench, not '$step'" >&2; exit 2 ;;
  esac
done
