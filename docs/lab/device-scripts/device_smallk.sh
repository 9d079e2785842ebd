#!/usr/bin/env bash
# On the CUDA machine: issue 37's "small k at large d" — our CUDA Lloyd step (f32) with the
# small-k kernel (--variant auto, which takes it at k <= 32, d >= 16) against the
# one-thread-per-point kernel that auto took before (--variant global; the update is the
# same), and PyTorch's step (bench/gpu/torch_step.py: eager and compiled forms, TF32 off)
# on the same points and initial centroids, with the memory floor (the points read once at
# the copy rate measured in the same run). Unpacks .devcarry-gpu/pack.tar.xz
# (docs/lab/device-scripts/device_pack.sh).
# Usage: OUT=DIR docs/lab/device-scripts/device_smallk.sh [checks] [bench]   (default: both)
#   checks: the small-k kernel's own durations under ncu (proof that it is the kernel that
#     runs), the CUDA suites that cover it, compute-sanitizer memcheck and racecheck on it and
#     on the update's cluster fold (small cases) → DIR/checks.txt and the suites' logs.
#   bench: the grid below → DIR/smallk.txt (the table last), DIR/smallk.json;
#     KMS_SMALLK_D="16 32 64 128 256", KMS_SMALLK_K="5 32", KMS_SMALLK_DATA="blobs uniform",
#     KMS_SMALLK_N=1000000 narrow or widen it.
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(checks bench)
record_device > /dev/null

checks() {
  local ncu bin=$work/bin
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  for shape in uniform:64:5 uniform:64:32 uniform:17:9 uniform:100:32; do
    IFS=: read -r kind d k <<< "$shape"
    generate_points "$kind" 1000000 "$d" "$work/c.npy" || continue
    echo "ncu, small-k kernel, 10^6 x $d, k = $k, f32 and f64 (duration, DRAM read):"
    for p in f32 f64; do
      "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum \
        -k regex:lloyd_small_k --launch-count 2 "$cli" run --input "$work/c.npy" --k "$k" --init random --seed 3 \
        --solver lloyd --backend cuda --precision $p --max-iter 2 --tol 0 2>&1 | grep -E "lloyd_small_k|duration|dram__"
    done
  done
  local functions=(doubleMatchesCpuLloyd floatMatchesLloydAndCpu "smallKMatchesExact gemmFilterPath lloydStatisticsAndStop fitLayerMatchesCpu autoRacesOnTheData errors")
  for f in "${functions[@]}"; do
    (timeout 400 "$bin/test_cuda_solvers" $f > "$out/solvers-${f%% *}.log" 2>&1; echo "test_cuda_solvers $f: exit $?") &
  done
  (timeout 400 "$bin/test_cuda_weights" > "$out/weights.log" 2>&1; echo "test_cuda_weights: exit $?") &
  for kernel in lloyd_small_k cluster_fold; do
    for tool in memcheck racecheck; do
      (KMS_GPU_TEST_SMALL=1 timeout 400 compute-sanitizer --tool $tool --kernel-name kns=$kernel --error-exitcode 9 \
         "$bin/test_cuda_solvers" smallKMatchesExact > "$work/$tool-$kernel.log" 2>&1
       echo "compute-sanitizer $tool ($kernel, smallKMatchesExact, small): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$work/$tool-$kernel.log")") &
    done
  done
  wait
  grep -h -E "^Totals|FAIL|lockstep|labels differed" "$out"/solvers-*.log "$out/weights.log"
}

bench() {
  local ds=${KMS_SMALLK_D:-"16 32 64 128 256"} ks=${KMS_SMALLK_K:-"5 32"} kinds=${KMS_SMALLK_DATA:-"blobs uniform"}
  local n=${KMS_SMALLK_N:-1000000} kind d k x c0 old new run
  : > "$work/jobs.txt"
  for kind in $kinds; do
    for d in $ds; do
      x="$work/$kind-$d.npy"
      generate_points "$kind" "$n" "$d" "$x" || continue
      for k in $ks; do
        c0="$work/$kind-$d-$k-c0.npy"  # k distinct rows (seed 3): ours and PyTorch start from these
        python3 -c "import numpy as np; x = np.load('$x', mmap_mode='r'); r = np.random.default_rng(3).choice(len(x), $k, replace=False); np.save('$c0', np.ascontiguousarray(x[np.sort(r)]))"
        run=("$cli" run --input "$x" --k "$k" --init "$c0" --solver lloyd --backend cuda --precision f32
             --max-iter 14 --tol 0)
        old=$(step_medians "${run[@]}" --variant global)
        new=$(step_medians "${run[@]}" --variant auto)
        echo "$kind d=$d k=$k: before $old now $new"
        echo "$kind,d=$d,k=$k $x $c0 {\"old\": $old, \"new\": $new}" >> "$work/jobs.txt"
      done
    done
  done
  PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/torch_step.py" --jobs "$work/jobs.txt" --json "$out/smallk.json"
}

for step in "${steps[@]}"; do
  case "$step" in
    checks) checks 2>&1 | tee "$out/checks.txt" ;;
    bench) bench 2>&1 | tee "$out/smallk.txt" ;;
    *) echo "device_smallk.sh: checks or bench, not '$step'" >&2; exit 2 ;;
  esac
done
