#!/usr/bin/env bash
# Run record (2026-11-27): --solver auto judging bounded solvers by their projected step once
# settled (judge_race_steps) against the base's fastest-step race (base-cli), and every
# candidate on its own, to convergence (tol 1e-4, at most 300 steps) and for fixed runs
# (tol 0); KMS_AUTO_SOLVERS picks the rows. Blobs (100 Gaussian blobs, seed 7) unless said; f32; random initial centroids, seed 3.
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
base=$root/.devcarry-gpu/base-cli
run() {  # KIND N D K TOL ITER
  local data=/dev/shm/kms-auto-$1-$2-$3.npy spec="$1:n=$2,d=$3"
  [ "$1" = blobs ] && spec="$spec,k=100"
  [ -f "$data" ] || "$cli" generate --generate "$spec" --seed 7 --out "$data" > /dev/null
  echo "## $1 n=$2 d=$3 k=$4 tol=$5 max-iter=$6"
  for s in ${KMS_AUTO_SOLVERS:-base-auto auto lloyd hamerly exponion}; do
    exe=$cli; solver=$s; [ $s = base-auto ] && { exe=$base; solver=auto; }
    "$exe" run --input "$data" --k "$4" --solver "$solver" --backend cuda --precision f32 --init random --seed 3 \
      --max-iter "$6" --tol "$5" --report json > "$work/a.jsonl" 2>&1 < /dev/null
    python3 - "$s" "$work/a.jsonl" <<'PY'
import json, sys
name, path = sys.argv[1:]
lines = [json.loads(l) for l in open(path) if l.startswith("{")]
its = [x for x in lines if x.get("type") == "iteration"]
summary = [x for x in lines if x.get("type") != "iteration"]
choice = next((x.get("solver_choice") for x in summary if x.get("solver_choice")), "")
total = sum(x["time_total_ms"] for x in its)
print(f"  {name:<10} {len(its):4d} steps {total:9.1f} ms  {choice[:260]}")
PY
  done
}
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run blobs 10000000 2 100 0 150
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run blobs 10000000 2 100 1e-4 300
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run uniform 10000000 2 100 1e-4 300
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run blobs 1000000 2 1000 1e-4 300
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run blobs 1000000 16 1000 1e-4 300
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run blobs 10000000 2 5 1e-4 300
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run uniform 1000000 64 100 1e-4 300
[ -n "${KMS_AUTO_ONLY_EXTRA:-}" ] || run blobs 1000000 200 128 1e-4 300
if [ -n "${KMS_AUTO_EXTRA:-}" ]; then  # more shapes, every row
  export KMS_AUTO_SOLVERS="base-auto auto lloyd hamerly exponion"
  run blobs 1000000 4 1000 1e-4 300
  run uniform 1000000 2 1000 1e-4 300
  run blobs 10000000 4 100 1e-4 300
  run blobs 1000000 64 1000 1e-4 100
fi
