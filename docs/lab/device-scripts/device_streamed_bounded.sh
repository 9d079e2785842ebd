#!/usr/bin/env bash
# On a CUDA machine (issue 42): the bounded solvers over points streamed from host memory.
# tests: test_cuda_devices' streamed cases (Lloyd, and Hamerly/Yinyang/Exponion bitwise the
# resident run) and out of core on the device; memcheck: compute-sanitizer on the small out-of-core
# case; regress: test_cuda_solvers and test_cuda_weights in small mode.
# bench: KMS_STREAM_N (10^9) x 4 blobs, f32, --stream-chunk 5*10^7, random start, to convergence
# (tol 1e-4, at most KMS_STREAM_ITER): streamed Lloyd against streamed Hamerly (and Exponion) at k in
# KMS_STREAM_K ("100 1000"): iterations, seconds, ms a step; label and centroid files cmp'd.
# Usage: OUT=DIR docs/lab/device-scripts/device_streamed_bounded.sh [tests] [memcheck] [regress] [bench]
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
record_device
steps=("$@"); [ ${#steps[@]} -eq 0 ] && steps=(tests bench)
for step in "${steps[@]}"; do
  case $step in
    tests)
      timeout "${KMS_TESTS_LIMIT:-170}" "$work/bin/test_cuda_devices" streamedBoundedSolversGiveTheResidentBits \
        outOfCoreGivesTheLoadedBits streamedChunksGiveOneDevicesBits streamedStepCopiesEveryPoint > "$out/tests-streamed.log" 2>&1
      echo "test_cuda_devices (streamed, out of core): exit $?"; grep -E "FAIL|Totals|QINFO" "$out/tests-streamed.log" | cut -c1-300 | head -12
      # The CLI out of core on the device (128 MB of points, 240 MiB for everything) against the loaded run.
      "$cli" generate --generate "blobs:n=2000000,d=8,k=20" --seed 5 --out "$work/ooc.npy" > /dev/null
      for solver in lloyd hamerly; do
        "$cli" run --input "$work/ooc.npy" --k 40 --seed 2 --backend cuda --solver $solver --devices 0 --max-iter 15 \
          --centroids-out "$work/ooc-loaded-$solver.csv" --labels-out "$work/ooc-loaded-$solver.txt" > /dev/null 2>&1
        "$cli" run --input "$work/ooc.npy" --k 40 --seed 2 --backend cuda --solver $solver --out-of-core on --memory-limit 240M \
          --max-iter 15 --centroids-out "$work/ooc-read-$solver.csv" --labels-out "$work/ooc-read-$solver.txt" > "$out/ooc-cli-$solver.txt" 2>&1
        echo "CLI out of core on the device, $solver: exit $? ($(grep -o '# out of core[^)]*)' "$out/ooc-cli-$solver.txt" | head -1))"
        cmp -s "$work/ooc-loaded-$solver.csv" "$work/ooc-read-$solver.csv" && cmp -s "$work/ooc-loaded-$solver.txt" "$work/ooc-read-$solver.txt" \
          && echo "  = the loaded --devices 0 run's centroid and label files" || { echo "  files DIFFER"; tail -3 "$out/ooc-cli-$solver.txt"; }
      done ;;
    memcheck)
      KMS_GPU_TEST_SMALL=1 timeout "${KMS_MEMCHECK_LIMIT:-170}" compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$work/bin/test_cuda_devices" outOfCoreGivesTheLoadedBits > "$out/memcheck-streamed.log" 2>&1
      echo "memcheck out of core (Lloyd, Hamerly streamed from the rows): exit $?"; tail -3 "$out/memcheck-streamed.log" ;;
    regress)
      for suite in test_cuda_solvers test_cuda_weights; do
        KMS_GPU_TEST_SMALL=1 timeout "${KMS_REGRESS_LIMIT:-80}" "$work/bin/$suite" > "$out/regress-$suite.log" 2>&1
        echo "$suite (small): exit $?"; grep -E "FAIL|Totals" "$out/regress-$suite.log" | head -5
      done ;;
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
