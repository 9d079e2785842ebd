#!/usr/bin/env bash
# `mpiexec -n M kmeans-cli run ...` (M = 2, 3) against one process: the labels and
# centroid files byte for byte, the summary's inertia and iteration count, one
# report (rank 0's) on stdout; and other commands refuse to run as ranks.
# usage: cli_ranks.sh KMEANS_CLI MPIEXEC
set -euo pipefail
cli=$1
mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpi=("$mpiexec" --oversubscribe --mca mpi_yield_when_idle 1 --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
awk 'BEGIN { for (i = 0; i < 30000; ++i) print (i * 7919) % 5 }' > "$dir/weights.txt"
summary() { tail -n 1 "$1" | grep -o '"\(inertia\|iterations\|stop_reason\)":[^,}]*' | tr '\n' ' '; }
failures=0
runs=0
for case in "lloyd f32 kmeans++" "hamerly f64 greedy-kmeans++" "exponion f32 random" "elkan f64 maximin weights" \
            "yinyang f64 kmeans++ weights"; do
  read -r solver precision init weighted <<<"$case"
  args=(run --generate blobs:n=30000,k=8,d=3,spread=0.08 --seed 4 --k 10 --solver "$solver" --precision "$precision"
        --init "$init" --max-iter 40 --report json --backend omp --threads 1)
  [ -n "${weighted:-}" ] && args+=(--weights "$dir/weights.txt")
  "$cli" "${args[@]}" --labels-out "$dir/labels-1" --centroids-out "$dir/centroids-1" > "$dir/out-1"
  for ranks in 2 3; do
    runs=$((runs + 1))
    "${mpi[@]}" -n "$ranks" "$cli" "${args[@]}" --labels-out "$dir/labels-$ranks" --centroids-out "$dir/centroids-$ranks" \
      > "$dir/out-$ranks"
    what="$case, $ranks ranks"
    cmp -s "$dir/labels-1" "$dir/labels-$ranks" || { echo "FAIL $what: labels differ"; failures=$((failures + 1)); }
    cmp -s "$dir/centroids-1" "$dir/centroids-$ranks" || { echo "FAIL $what: centroids differ"; failures=$((failures + 1)); }
    [ "$(summary "$dir/out-1")" = "$(summary "$dir/out-$ranks")" ] ||
      { echo "FAIL $what: summary $(summary "$dir/out-$ranks") vs $(summary "$dir/out-1")"; failures=$((failures + 1)); }
    [ "$(wc -l < "$dir/out-1")" = "$(wc -l < "$dir/out-$ranks")" ] ||
      { echo "FAIL $what: $(wc -l < "$dir/out-$ranks") report lines, one process prints $(wc -l < "$dir/out-1")"; failures=$((failures + 1)); }
    echo "$what: $(summary "$dir/out-$ranks")"
  done
done
# Other commands would run M whole copies: refused.
if "${mpi[@]}" -n 2 "$cli" generate --generate blobs:n=100 --out "$dir/g.csv" > "$dir/gen.out" 2>&1; then
  echo "FAIL: generate ran as 2 ranks"; failures=$((failures + 1))
fi
grep -q "does not run over MPI ranks" "$dir/gen.out" || { echo "FAIL: no refusal message"; failures=$((failures + 1)); }
echo "cli_ranks: $runs runs over ranks, $failures failures: $([ "$failures" = 0 ] && echo PASS || echo FAIL)"
[ "$failures" = 0 ]
