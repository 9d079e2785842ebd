#!/usr/bin/env bash
# Issue 41's `solvers` grid on the lent machine's CPU (all its cores, omp, f64): every registered
# solver and `auto` from the same random initial rows (scripts/bench.sh solvers --cpu-only), to
# convergence or KMS_GRID_CAP iterations (default 100: all solvers then run the same iterations,
# Lloyd's, so times compare), a run stopped after KMS_GRID_RUN_S seconds (its row says "cut"),
# one repeat. In three phases, each under its own time limit, so that the whole finishes inside
# 8 minutes: blobs n = 10^5 (d 2, 8, 32, 64; k 10, 100, 1000, 5000), uniform the same, then
# n = 10^6 at d = 2 with k 1000 and 5000 (where Ball k-means should gain most). A phase cut by
# its limit keeps the rows it measured. Writes $OUT/solvers-grid.csv (one row per cell and
# solver), each phase's report.md and results.jsonl, and $OUT/machine.txt.
# Pack (on the build machine, a CPU-only build with kmeans-cli and bench_ceiling):
#   KMS_DEVICE_CARRY=.devcarry-solvers docs/lab/device-scripts/device_pack.sh build-cpu
# Usage: OUT=DIR KMS_DEVICE_CARRY=.devcarry-solvers docs/lab/device-scripts/device_solvers_grid.sh
#   KMS_GRID_PHASES ("blobs uniform large"), KMS_GRID_LIMITS (seconds per phase, "165 165 110"),
#   KMS_GRID_N / _D / _K: the small phases' grid (a dry run's); KMS_GRID_LARGE_N (1000000).
set -uo pipefail
export KMS_DEVICE_CARRY=${KMS_DEVICE_CARRY:-.devcarry-solvers}
source "$(dirname "$0")/device_common.sh"
{ echo "date: $(date -u +%FT%TZ)"; echo "cores: $(nproc)"; grep -m1 'model name' /proc/cpuinfo; } | tee "$out/machine.txt"
export KMS_CLI=$cli KMS_BENCH_CEILING=$work/bin/bench_ceiling KMS_BENCH_REPEATS=1
export KMS_SOLVERS_MAX_ITER=${KMS_GRID_CAP:-100} KMS_SOLVERS_RUN_TIMEOUT=${KMS_GRID_RUN_S:-4}
read -r -a limits <<< "${KMS_GRID_LIMITS:-165 165 110}"
phase_index=0
for phase in ${KMS_GRID_PHASES:-blobs uniform large}; do
  limit=${limits[$phase_index]:-110}; phase_index=$((phase_index + 1))
  case $phase in
    blobs|uniform) n=${KMS_GRID_N:-100000}; d=${KMS_GRID_D:-2,8,32,64}; k=${KMS_GRID_K:-10,100,1000,5000}; data=$phase ;;
    large) n=${KMS_GRID_LARGE_N:-1000000}; d=2; k=${KMS_GRID_K_LARGE:-1000,5000}; data=blobs,uniform ;;
    *) echo "unknown phase $phase"; continue ;;
  esac
  echo "== phase $phase: n=$n d=$d k=$k data=$data, at most $limit s"
  KMS_SOLVERS_N=$n KMS_SOLVERS_D=$d KMS_SOLVERS_K=$k KMS_SOLVERS_DATA=$data \
    timeout "$limit" "$root/scripts/bench.sh" solvers --cpu-only --out "$out/$phase" > "$out/$phase.log" 2>&1
  echo "phase $phase: exit $? (124 or 3: cut by its limit), $(wc -l < "$out/$phase/results.jsonl" 2>/dev/null || echo 0) rows"
done
# One CSV of every phase's rows.
python3 - "$out" <<'EOF'
import csv, glob, json, os, sys
out = sys.argv[1]
rows = [json.loads(line) for path in sorted(glob.glob(os.path.join(out, "*", "results.jsonl"))) for line in open(path)]
fields = ["data", "n", "d", "k", "backend", "solver", "ran", "iterations", "seconds", "distances", "cc_distances",
          "skips", "stable", "second", "error"]
with open(os.path.join(out, "solvers-grid.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
print(f"solvers-grid.csv: {len(rows)} rows")
EOF
