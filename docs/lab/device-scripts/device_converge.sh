#!/usr/bin/env bash
# On the CUDA machine: time to convergence of every CUDA solver (and --solver auto,
# whose race is reported apart) on 10^6 float points, from the same random initial
# centroids, until no label changes (tol 0) or 300 iterations. Unpacks
# .devcarry-gpu/pack.tar.xz (docs/lab/device-scripts/device_pack.sh).
# KMS_CONVERGE_SHAPES: "kind:d:k ..."; KMS_CONVERGE_N: points (default 10^6).
# Usage: OUT=DIR docs/lab/device-scripts/device_converge.sh   → DIR/converge.txt, DIR/converge.jsonl
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
n=${KMS_CONVERGE_N:-1000000}
shapes=${KMS_CONVERGE_SHAPES:-"blobs:2:1000 uniform:2:1000 blobs:16:1000 blobs:64:1000 uniform:64:1000 blobs:200:128"}
record_device
: > "$out/converge.jsonl"
for shape in $shapes; do
  IFS=: read -r kind d k <<< "$shape"
  generate_points "$kind" "$n" "$d" "$work/x.npy" || continue
  for solver in lloyd elkan hamerly yinyang exponion auto; do
    [ "$solver" = elkan ] && [ $((n * k)) -gt 2000000000 ] && continue
    "$cli" run --input "$work/x.npy" --k "$k" --solver "$solver" --backend cuda --precision f32 --init random \
             --seed 3 --max-iter 300 --tol 0 --report json >"$work/run.jsonl" 2>"$work/err"
    python3 - "$shape" "$solver" "$?" "$work/err" "$out/converge.jsonl" "$work/run.jsonl" <<'PY'
import json, sys
shape, solver, status, err, sink, run = sys.argv[1:]
rows = [json.loads(l) for l in open(run) if l.startswith("{")]
its = [r for r in rows if r.get("type") == "iteration"]
if status != "0" or not its:
    print(f"{shape:16} {solver:8} failed: {open(err).read().strip()[-300:]}"); sys.exit()
total = sum(r["time_total_ms"] for r in its)
summary = rows[-1]
choice = summary.get("solver_choice", "")
print(f"{shape:16} {solver:8} {len(its):4d} its  {total:9.1f} ms in steps  ({summary.get('solver')}) {choice}")
with open(sink, "a") as f:
    f.write(json.dumps({"shape": shape, "solver": solver, "iterations": len(its), "total_ms": total,
                        "ran": summary.get("solver"), "choice": choice}) + "\n")
PY
  done
done | tee "$out/converge.txt"
