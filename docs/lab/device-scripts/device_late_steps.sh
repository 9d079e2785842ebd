#!/usr/bin/env bash
# On a CUDA machine: where a run's time goes as it converges. Each solver runs from
# the same random initial centroids (tol 0, KMS_LATE_ITER steps, default 300) on float
# blobs (kmeans-cli generate blobs:n=N,d=D,k=100 --seed 7); prints the mean step and
# its parts (bounds, assignment, update), the distance evaluations and the labels
# changed over steps 1, 2-10, 11-50, 51-150 and 151-N. Unpacks the pack as the other
# device scripts do (docs/lab/device-scripts/device_common.sh).
# Usage: KMS_LATE_N=1000000 KMS_LATE_D=2 KMS_LATE_K=1000 docs/lab/device-scripts/device_late_steps.sh [SOLVER...]
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
n=${KMS_LATE_N:-1000000}; d=${KMS_LATE_D:-2}; k=${KMS_LATE_K:-1000}; iters=${KMS_LATE_ITER:-300}
data=/dev/shm/kms-late-$n-$d.npy
[ -f "$data" ] || "$cli" generate --generate "blobs:n=$n,d=$d,k=100" --seed 7 --out "$data" > /dev/null || exit 1
solvers=("$@")
[ ${#solvers[@]} -eq 0 ] && solvers=(exponion hamerly)
for solver in "${solvers[@]}"; do
  "$cli" run --input "$data" --k "$k" --solver "$solver" --backend cuda --precision f32 --init random --seed 3 \
    --max-iter "$iters" --tol 0 --report json > "$work/late.jsonl" 2>&1 < /dev/null
  python3 - "$solver" "$work/late.jsonl" <<'PY' | tee -a "$out/late-steps.txt"
import json, statistics, sys
solver, path = sys.argv[1:]
its = [json.loads(l) for l in open(path) if l.startswith('{"type":"iteration"')]
print(solver, len(its), "its, total", round(sum(x["time_total_ms"] for x in its), 1))
for lo, hi in [(0, 1), (1, 10), (10, 50), (50, 150), (150, len(its))]:
    s = its[lo:hi]
    if not s: continue
    m = lambda key: statistics.mean(x[key] for x in s)
    print(f"    [{lo + 1}-{hi}] step {m('time_total_ms'):.3f} (bounds {m('time_bounds_ms'):.3f} assign {m('time_assign_ms'):.3f}"
          f" update {m('time_update_ms'):.3f}) dist {m('point_centroid_distances') / 1e6:.2f}M changed {m('labels_changed'):.0f}")
PY
done
