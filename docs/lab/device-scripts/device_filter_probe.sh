#!/usr/bin/env bash
# On the CUDA machine: Lloyd cuda-shared's int8 filter against the exact kernel, per
# step (gpu/src/solvers/cuda_lloyd.cu keeps or leaves the filter by the run's own
# timings): assignment ms and verified points of each step with the filter on, the
# totals with it off, and whether both runs changed the same labels at every step.
# Unpacks .devcarry-gpu/pack.tar.xz (docs/lab/device-scripts/device_pack.sh).
# Usage: OUT=DIR docs/lab/device-scripts/device_filter_probe.sh   → DIR/filter.txt
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
for spec in uniform:n=1000000,d=64:1000 uniform:n=500000,d=200:128 blobs:n=1000000,d=64,k=100:1000 \
            blobs:n=500000,d=200,k=100:128; do
  data=${spec%:*} k=${spec##*:}
  "$cli" generate --generate "$data" --seed 7 --out "$work/x.npy" >/dev/null
  for filter in on off; do
    "$cli" run --input "$work/x.npy" --k "$k" --backend cuda --variant shared --int8-filter "$filter" --precision f32 \
      --init random --seed 3 --max-iter 20 --tol 0 --report json > "$work/r-$filter.jsonl"
  done
  python3 - "$work/r-on.jsonl" "$work/r-off.jsonl" "$data k=$k" <<'PY'
import json, statistics, sys
def steps(path): return [r for r in map(json.loads, open(path)) if r["type"] == "iteration"]
on, off, name = steps(sys.argv[1]), steps(sys.argv[2]), sys.argv[3]
print(f"== {name}: filter on  per step (assign ms / verified): " +
      " ".join(f"{r['time_assign_ms']:.2f}/{r['verified_points']}" for r in on))
print(f"   filter on: total assign {sum(r['time_assign_ms'] for r in on):.1f} ms, "
      f"median {statistics.median(r['time_assign_ms'] for r in on[2:]):.3f}; "
      f"filter off: total {sum(r['time_assign_ms'] for r in off):.1f} ms, "
      f"median {statistics.median(r['time_assign_ms'] for r in off[2:]):.3f}; "
      f"same labels changed per step: {[r['labels_changed'] for r in on] == [r['labels_changed'] for r in off]}")
PY
done 2>&1 | tee "$out/filter.txt"
