#!/usr/bin/env bash
# Byte-for-byte comparison of two kmeans-cli builds' results (labels and centroids) over data sets,
# k, solvers, precisions and back ends: what a change that must not change a bit is checked with.
# usage: scripts/compare_cli_outputs.sh OLD_CLI NEW_CLI   (exit 1 when any run differs)
set -uo pipefail
old=${1:?old kmeans-cli}; new=${2:?new kmeans-cli}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0; count=0
for spec in "blobs:n=30000,k=20,d=2" "blobs:n=20000,k=7,d=3" "uniform:n=15000,d=16" "blobs:n=5000,k=50,d=64" \
            "blobs:n=40000,k=5,d=1" "uniform:n=3000,d=5,low=1000000,high=1000001" "he4d:n=20000"; do
  "$new" generate --generate "$spec" --seed 3 --out "$work/data.npy" --format npy >/dev/null 2>&1 || { echo "cannot generate $spec"; exit 2; }
  for k in 1 5 37 120; do for solver in lloyd elkan hamerly yinyang exponion; do for precision in f32 f64; do for backend in seq omp; do
    args=(run --input "$work/data.npy" --k $k --init kmeans++ --seed 11 --solver $solver --precision $precision
          --backend $backend --threads 2 --max-iter 60)
    "$old" "${args[@]}" --labels-out "$work/lo.txt" --centroids-out "$work/co.csv" >/dev/null 2>&1
    "$new" "${args[@]}" --labels-out "$work/ln.txt" --centroids-out "$work/cn.csv" >/dev/null 2>&1
    count=$((count + 1))
    if ! cmp -s "$work/lo.txt" "$work/ln.txt" || ! cmp -s "$work/co.csv" "$work/cn.csv"; then
      echo "differs: $spec k=$k $solver $precision $backend"; fail=$((fail + 1))
    fi
    rm -f "$work"/lo.txt "$work"/ln.txt "$work"/co.csv "$work"/cn.csv
  done; done; done; done
done
echo "compared $count runs, $fail differ"
[ "$fail" -eq 0 ]
