#!/usr/bin/env bash
# On the CUDA machine: Elkan's timed choice between bounded steps and steps that rebuild
# the bounds by the tiled full search (gpu/src/solvers/cuda_bounded_solver.cu), per step,
# and the labels of Elkan, Hamerly and Lloyd compared byte for byte (f64, the same run).
# Unpacks .devcarry-gpu/pack.tar.xz (docs/lab/device-scripts/device_pack.sh). Usage: OUT=DIR docs/lab/device-scripts/device_elkan_rebuild.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
for spec in uniform:n=1000000,d=64:1000 uniform:n=1000000,d=64:100 blobs:n=1000000,d=64,k=100:1000 blobs:n=1000000,d=2,k=100:1000; do
  data=${spec%:*} k=${spec##*:}
  "$cli" generate --generate "$data" --seed 7 --out "$work/x.npy" >/dev/null
  for precision in f32 f64; do
    for solver in elkan hamerly lloyd; do
      "$cli" run --input "$work/x.npy" --k "$k" --solver "$solver" --backend cuda --precision "$precision" --init random \
        --seed 3 --max-iter 20 --tol 0 --report json --labels-out "$work/labels-$solver.txt" > "$work/$solver.jsonl" \
        || echo "$solver failed"
    done
    python3 - "$data k=$k $precision" "$work" <<'PY'
import json, statistics, sys
name, work = sys.argv[1:]
def steps(s): return [r for r in map(json.loads, open(f"{work}/{s}.jsonl")) if r["type"] == "iteration"]
line = []
for s in ("elkan", "hamerly", "lloyd"):
    its = steps(s)
    total = sum(r["time_total_ms"] for r in its)
    line.append(f"{s} median {statistics.median(r['time_total_ms'] for r in its[2:]):.3f} ms, 20 steps {total:.1f} ms")
print(f"== {name}: " + "; ".join(line))
print("   elkan per step (ms/distances per n·k): " + " ".join(
    f"{r['time_total_ms']:.2f}/{r['point_centroid_distances'] / (int(name.split('n=')[1].split(',')[0]) * int(name.split('k=')[-1].split()[0])):.2f}"
    for r in steps("elkan")))
PY
    cmp -s "$work/labels-elkan.txt" "$work/labels-lloyd.txt" && cmp -s "$work/labels-hamerly.txt" "$work/labels-lloyd.txt" \
      && echo "   labels: elkan = hamerly = lloyd" || echo "   LABELS DIFFER"
  done
done 2>&1 | tee "$out/elkan-rebuild.txt"
