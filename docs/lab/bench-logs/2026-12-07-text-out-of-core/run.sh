#!/usr/bin/env bash
# Text out of core (issue 42) on the dev VM: a ~1 GB CSV of 16 columns (3.4·10^6 blobs, the
# values as `kmeans-cli generate` writes them: the shortest decimal that reads back, ~17 digits)
# and the same points as a float64 .npy; bench_load --rows (the first pass, and one pass reading
# every row back by blocks), then kmeans-cli run: the CSV loaded, the .npy out of core, the CSV out
# of core (k = 20, random start, 6 steps at tol 0, 2 threads): each step's time, the wall time, the
# files (all must be byte-identical).
# usage: run.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
build=$1
work=${2:-/tmp/kms-text-ooc}
cli=$build/app/kmeans-cli
mkdir -p "$work"
spec="blobs:n=3400000,k=20,d=16,spread=0.3"
[ -f "$work/big.csv" ] || "$cli" generate --generate "$spec" --seed 5 --out "$work/big.csv" > /dev/null
[ -f "$work/big.npy" ] || "$cli" generate --generate "$spec" --seed 5 --out "$work/big.npy" > /dev/null
ls -l "$work/big.csv" "$work/big.npy"
uptime
"$build/bench/bench_load" --reuse --rows --repeats 3 "$work/big.csv"
uptime
steps() {  # median of steps 2..6's time_total_ms, and each
  grep '"type":"iteration"' "$1" | grep -o '"time_total_ms":[0-9.]*' | cut -d: -f2 | tail -n +2 |
    sort -n | awk '{ a[NR] = $1 } END { printf "median %.0f ms (", a[int((NR + 1) / 2)]; for (i = 1; i <= NR; ++i) printf "%s%.0f", (i > 1 ? " " : ""), a[i]; printf ")" }'
}
base=(run --k 20 --seed 1 --init random --max-iter 6 --tol 0 --backend omp --threads 2 --report json)
for mode in csv-loaded npy-ooc csv-ooc; do
  case $mode in
    csv-loaded) input=(--input "$work/big.csv" --out-of-core off) ;;
    npy-ooc) input=(--input "$work/big.npy" --out-of-core on --memory-limit 1G) ;;
    csv-ooc) input=(--input "$work/big.csv" --out-of-core on --memory-limit 1G) ;;
  esac
  /usr/bin/time -f "%e s wall, %U+%S CPU-s, %M KB peak" -o "$work/$mode.time" \
    "$cli" "${base[@]}" "${input[@]}" --labels-out "$work/$mode.labels" --centroids-out "$work/$mode.centroids" \
    > "$work/$mode.json"
  echo "$mode: $(cat "$work/$mode.time"); steps: $(steps "$work/$mode.json")"
done
uptime
for mode in npy-ooc csv-ooc; do
  cmp -s "$work/csv-loaded.labels" "$work/$mode.labels" && cmp -s "$work/csv-loaded.centroids" "$work/$mode.centroids" &&
    echo "$mode: the loaded run's files" || echo "$mode: FILES DIFFER"
done
