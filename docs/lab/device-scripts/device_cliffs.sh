#!/usr/bin/env bash
# On the CUDA machine: the per-iteration time of every CUDA solver and kernel variant
# at the shapes where a variant used to fall off a cliff (large d·k), so each can be
# compared with the best in the same run. Unpacks .devcarry-gpu/pack.tar.xz
# (docs/lab/device-scripts/device_pack.sh). Float data, 10^6 points (KMS_CLIFF_N), blobs and uniform;
# median of iterations 3..12 (the first builds bounds and warms caches).
# KMS_CLIFF_SOLVERS picks the solvers (default: all five).
# Usage: OUT=DIR docs/lab/device-scripts/device_cliffs.sh   → DIR/cliffs.txt (a table), DIR/cliffs.jsonl
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
n=${KMS_CLIFF_N:-1000000}
shapes=${KMS_CLIFF_SHAPES:-"blobs:4:48 blobs:16:48 blobs:64:48 blobs:2:100 blobs:2:1000 blobs:4:100 blobs:16:100 blobs:16:1000 blobs:64:100 blobs:64:1000 uniform:64:100 uniform:64:1000 blobs:200:128"}
record_device
: > "$out/cliffs.jsonl"
for shape in $shapes; do
  IFS=: read -r kind d k <<< "$shape"
  generate_points "$kind" "$n" "$d" "$work/x.npy" || continue
  for solver in ${KMS_CLIFF_SOLVERS:-lloyd hamerly elkan yinyang exponion}; do
    # Elkan keeps n·k bounds: skip it where they pass 8 GB.
    [ "$solver" = elkan ] && [ $((n * k)) -gt 2000000000 ] && continue
    for variant in global shared; do
      "$cli" run --input "$work/x.npy" --k "$k" --solver "$solver" --backend cuda --variant "$variant" \
               --precision f32 --init random --seed 3 --max-iter 12 --tol 0 --report json >"$work/run.jsonl" 2>"$work/err"
      status=$?
      python3 - "$shape" "$solver" "$variant" "$status" "$work/err" "$out/cliffs.jsonl" "$work/run.jsonl" <<'EOF'
import json, statistics, sys
shape, solver, variant, status, err, sink, run = sys.argv[1:]
rows = [json.loads(l) for l in open(run) if l.startswith("{")]
its = [r for r in rows if r.get("type") == "iteration"]
if status != "0" or not its:
    print(f"{shape:16} {solver:8} {variant:7} failed: {open(err).read().strip()[-300:]}")
    sys.exit()
later = [r["time_total_ms"] for r in its[2:]] or [its[-1]["time_total_ms"]]
first = its[0]["time_total_ms"]
med = statistics.median(later)
skips = sum(r["bound_skips"] for r in its[2:]) / max(1, len(its[2:]))
dists = sum(r["point_centroid_distances"] for r in its[2:]) / max(1, len(its[2:]))
groups = sum(r.get("group_skips", 0) for r in its[2:]) / max(1, len(its[2:]))
extra = f", group skips/it {groups:,.0f}" if groups else ""
print(f"{shape:16} {solver:8} {variant:7} first {first:9.3f} ms  median {med:9.3f} ms  ({len(its)} its, skips/it {skips:,.0f}, distances/it {dists:,.0f}{extra})")
with open(sink, "a") as f:
    f.write(json.dumps({"shape": shape, "solver": solver, "variant": variant, "first_ms": first, "median_ms": med,
                        "iterations": len(its), "summary": rows[-1]}) + "\n")
EOF
    done
  done
done | tee "$out/cliffs.txt"
