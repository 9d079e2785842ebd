#!/usr/bin/env bash
# On a CUDA machine (issue 42): the bounded solvers over points streamed from host memory.
# tests: test_cuda_devices' streamed cases (Lloyd, and Hamerly/Yinyang/Exponion bitwise the
# resident run), compute-sanitizer memcheck on the small streamed bounded case.
# bench: KMS_STREAM_N (10^9) x 4 blobs, f32, --stream-chunk 5*10^7, random start, to convergence
# (tol 1e-4, at most KMS_STREAM_ITER): streamed Lloyd against streamed Hamerly (and Exponion) at k in
# KMS_STREAM_K ("100 1000"): iterations, seconds, ms a step; label and centroid files cmp'd.
# Usage: OUT=DIR docs/lab/device-scripts/device_streamed_bounded.sh [tests] [bench]
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
record_device
steps=("$@"); [ ${#steps[@]} -eq 0 ] && steps=(tests bench)
for step in "${steps[@]}"; do
  case $step in
    tests)
      timeout 300 "$work/bin/test_cuda_devices" streamedBoundedSolversGiveTheResidentBits streamedChunksGiveOneDevicesBits \
        streamedStepCopiesEveryPoint > "$out/tests-streamed.log" 2>&1
      echo "test_cuda_devices (streamed): exit $?"; grep -E "FAIL|Totals|QINFO" "$out/tests-streamed.log" | cut -c1-300 | head -12
      KMS_GPU_TEST_SMALL=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$work/bin/test_cuda_devices" streamedBoundedSolversGiveTheResidentBits > "$out/memcheck-streamed.log" 2>&1
      echo "memcheck streamed bounded: exit $?"; tail -2 "$out/memcheck-streamed.log" ;;
    bench)
      n=${KMS_STREAM_N:-1000000000}
      start=$SECONDS
      "$cli" generate --generate "blobs:n=$n,d=4,k=100" --seed 7 --out "$work/x.npy" > /dev/null || exit 1
      echo "generated $n x 4 blobs in $((SECONDS - start)) s"
      for k in ${KMS_STREAM_K:-100 1000}; do
        for solver in ${KMS_STREAM_SOLVERS:-lloyd hamerly exponion}; do
          start=$SECONDS
          "$cli" run --input "$work/x.npy" --k "$k" --init random --seed 3 --backend cuda --precision f32 \
            --solver $solver --stream-chunk 50000000 --max-iter "${KMS_STREAM_ITER:-60}" --report json \
            --centroids-out "$work/c-$k-$solver.csv" --labels-out "$work/l-$k-$solver.txt" > "$work/r-$k-$solver.json" 2>&1
          rc=$?
          python3 - "$work/r-$k-$solver.json" "$k" "$solver" "$rc" "$((SECONDS - start))" <<'PY'
import json, statistics, sys
path, k, solver, rc, wall = sys.argv[1:]
its, summary = [], {}
for line in open(path):
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    if r.get("type") == "iteration":
        its.append(r)
    else:
        summary.update(r)
if not its:
    print(f"k={k} {solver}: exit {rc}, no iterations: " + open(path).read()[-400:]); sys.exit()
total = sum(r["time_total_ms"] for r in its)
print(f"k={k} streamed {solver}: exit {rc}, {len(its)} steps, steps {total / 1000:.2f} s, median step "
      f"{statistics.median(r['time_total_ms'] for r in its):.1f} ms, distances {sum(r.get('point_centroid_distances', 0) for r in its):.3e}, "
      f"stop {summary.get('stop_reason')}, inertia {summary.get('inertia')}, wall {wall} s")
PY
        done
        for solver in ${KMS_STREAM_SOLVERS:-lloyd hamerly exponion}; do [ $solver = lloyd ] && continue
          cmp -s "$work/c-$k-lloyd.csv" "$work/c-$k-$solver.csv" && cmp -s "$work/l-$k-lloyd.txt" "$work/l-$k-$solver.txt" \
            && echo "k=$k: streamed $solver wrote streamed Lloyd's centroids and labels byte for byte" \
            || echo "k=$k: streamed $solver's files DIFFER from streamed Lloyd's"
        done
      done ;;
  esac
done
