#!/usr/bin/env bash
# On the CUDA machine, after a change of the CUDA back end's shape (issue 38's merge): every GPU
# suite of the pack in parallel groups, the CLI end to end (cuda labels = omp labels in f64), a
# CUDA allocation that cannot succeed (issue 39: a message with the sizes, exit 1), and, where
# .devcarry-old/kmeans-cli-*.xz holds an earlier build's CLI, the same CUDA runs by both
# (outputs compared byte for byte; step medians side by side).
# Usage: OUT=DIR docs/lab/device-scripts/device_suites.sh   (KMS_SUITES_COMPARE_ONLY=1: the old-vs-new comparison alone)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
record_device > /dev/null
bin=$work/bin

if [ -z "${KMS_SUITES_COMPARE_ONLY:-}" ]; then
for f in gemmFilterPath doubleMatchesCpuLloyd floatMatchesLloydAndCpu \
         "smallKMatchesExact lloydStatisticsAndStop fitLayerMatchesCpu autoRacesOnTheData errors"; do
  (timeout 400 "$bin/test_cuda_solvers" $f > "$out/solvers-${f%% *}.log" 2>&1; echo "test_cuda_solvers $f: exit $?") &
done
for suite in test_cuda_weights test_cuda_devices test_cuda_init test_gpu_scores; do
  (timeout 400 "$bin/$suite" > "$out/$suite.log" 2>&1; echo "$suite: exit $? $(grep -h '^Totals' "$out/$suite.log")") &
done
wait
grep -h -E "^Totals|FAIL" "$out"/solvers-*.log

"$cli" generate --generate blobs:n=1000000,k=100,d=16 --seed 4 --out "$work/x.npy" >/dev/null
for where in omp cuda; do
  "$cli" run --input "$work/x.npy" --k 100 --n-init 2 --seed 4 --backend $where --precision f64 \
    --centroids-out "$work/c-$where.csv" --labels-out "$work/l-$where.txt" > /dev/null
done
cmp "$work/l-omp.txt" "$work/l-cuda.txt" && echo "CLI f64, 10^6 x 16, k = 100: cuda labels = omp labels"

echo "== a CUDA allocation that cannot succeed (Elkan's n·k bounds, 10^6 x 30000):"
"$cli" run --generate uniform:n=1000000,d=2 --k 30000 --solver elkan --backend cuda --init random --seed 1 \
  --max-iter 1 > /dev/null 2> "$work/oom.txt"
echo "exit $?: $(head -c 600 "$work/oom.txt")"

fi

old=$(ls "$root"/.devcarry-old/kmeans-cli-*.xz 2>/dev/null | head -1)
if [ -n "$old" ]; then
  xz -dc "$old" > "$work/old-cli" && chmod +x "$work/old-cli"
  echo "== the same CUDA runs by $(basename "$old" .xz) and by this build: outputs, step medians (ms)"
  "$cli" generate --generate blobs:n=1000000,k=100,d=2 --seed 5 --out "$work/y.npy" >/dev/null
  for solver in lloyd elkan hamerly yinyang exponion; do
    for p in f32 f64; do
      line="$solver $p:"
      for build in old new; do
        exe=$cli; [ $build = old ] && exe=$work/old-cli
        "$exe" run --input "$work/y.npy" --k 1000 --solver $solver --backend cuda --precision $p --seed 5 \
          --max-iter 30 --tol 0 --centroids-out "$work/$build.csv" --labels-out "$work/$build.txt" --report json \
          > "$work/$build.json" 2>&1
        med=$(python3 -c '
import json, statistics, sys
its = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
its = [r["time_total_ms"] for r in its if r.get("type") == "iteration"][2:]
print(round(statistics.median(its), 4) if its else "failed")' "$work/$build.json")
        line="$line $build $med"
      done
      same=differ; cmp -s "$work/old.csv" "$work/new.csv" && cmp -s "$work/old.txt" "$work/new.txt" && same=identical
      echo "$line; centroids and labels $same"
    done
  done
fi
