#!/usr/bin/env bash
# The CPU `--solver auto` rule's evidence at d >= 5 (docs/solvers.md): each solver to
# convergence (or the cap) on the same data and initial centroids, one thread, the
# solvers interleaved and repeated; prints the smallest sum of time_total_ms of each.
# Usage: bench/cpu_auto_grid.sh [CLI] > grid.txt
#   KMS_GRID_D ("8 16 32 64"), KMS_GRID_K ("16 30 50 100 200 500"), KMS_GRID_N (100000),
#   KMS_GRID_DATA ("blobs uniform"), KMS_GRID_REPS (2), KMS_GRID_CAP (100 iterations).
set -uo pipefail
cli=${1:-build/app/kmeans-cli}
n=${KMS_GRID_N:-100000}; reps=${KMS_GRID_REPS:-2}; cap=${KMS_GRID_CAP:-100}
echo "# $(date -u +%FT%TZ) $(nproc) cores; n=$n, one thread, f64, --init random --seed 7 --tol 0, cap $cap iterations; ms = min over $reps of the sum of time_total_ms"
printf "%-8s %4s %5s %6s %10s %10s %10s  %s\n" data d k iters lloyd hamerly exponion fastest
for data in ${KMS_GRID_DATA:-blobs uniform}; do
  for d in ${KMS_GRID_D:-8 16 32 64}; do
    for k in ${KMS_GRID_K:-16 30 50 100 200 500}; do
      spec="$data:n=$n,d=$d"; [ "$data" = blobs ] && spec="$spec,k=$k"
      solvers="lloyd hamerly exponion"  # Lloyd at every k: at d >= 16 its full search is a certified GEMM
      declare -A best=(); iters=""
      for rep in $(seq "$reps"); do
        for s in $solvers; do
          out=$("$cli" run --generate "$spec" --seed 7 --k "$k" --init random --tol 0 --max-iter "$cap" \
                  --backend seq --precision f64 --solver "$s" --report json 2>/dev/null)
          ms=$(echo "$out" | python3 -c 'import sys, json
t = 0.0; i = 0
for line in sys.stdin:
    if line.startswith("{\"type\":\"iteration\""): x = json.loads(line); t += x["time_total_ms"]; i += 1
print(f"{t:.1f} {i}")')
          read -r t i <<<"$ms"; iters=$i
          if [ -z "${best[$s]:-}" ] || python3 -c "import sys; sys.exit(0 if $t < ${best[$s]} else 1)"; then best[$s]=$t; fi
        done
      done
      fastest=$(for s in $solvers; do echo "${best[$s]} $s"; done | sort -g | head -1 | cut -d' ' -f2)
      printf "%-8s %4s %5s %6s %10s %10s %10s  %s\n" "$data" "$d" "$k" "$iters" "${best[lloyd]:--}" "${best[hamerly]}" "${best[exponion]}" "$fastest"
      unset best
    done
  done
done
