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
summary() {
  tail -n 1 "$1" | grep -o '"\(inertia\|iterations\|stop_reason\|silhouette\|calinski_harabasz\|davies_bouldin\|ari\|nmi\|centroid_index\)":[^,}]*' |
    tr '\n' ' '
}
failures=0
runs=0
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
# One process, then 2 and 3 ranks, with the arguments in args: the same files and summary, one report.
# $1 describes the case; $2 (optional) is a line every rank run's report must contain.
compare_ranks() {
  "$cli" "${args[@]}" --labels-out "$dir/labels-1" --centroids-out "$dir/centroids-1" > "$dir/out-1"
  for ranks in 2 3; do
    runs=$((runs + 1))
    "${mpi[@]}" -n "$ranks" "$cli" "${args[@]}" --labels-out "$dir/labels-$ranks" --centroids-out "$dir/centroids-$ranks" \
      > "$dir/out-$ranks"
    what="$1, $ranks ranks"
    cmp -s "$dir/labels-1" "$dir/labels-$ranks" || fail "$what: labels differ"
    cmp -s "$dir/centroids-1" "$dir/centroids-$ranks" || fail "$what: centroids differ"
    [ "$(summary "$dir/out-1")" = "$(summary "$dir/out-$ranks")" ] ||
      fail "$what: summary $(summary "$dir/out-$ranks") vs $(summary "$dir/out-1")"
    [ "$(wc -l < "$dir/out-1")" = "$(wc -l < "$dir/out-$ranks")" ] ||
      fail "$what: $(wc -l < "$dir/out-$ranks") report lines, one process prints $(wc -l < "$dir/out-1")"
    [ -z "${2:-}" ] || grep -q "$2" "$dir/out-$ranks" || fail "$what: the report lacks $2"
    echo "$what: $(summary "$dir/out-$ranks")"
  done
}
for case in "lloyd f32 kmeans++" "hamerly f64 greedy-kmeans++" "exponion f32 random" "elkan f64 maximin weights" \
            "yinyang f64 kmeans++ weights"; do
  read -r solver precision init weighted <<<"$case"
  args=(run --generate blobs:n=30000,k=8,d=3,spread=0.08 --seed 4 --k 10 --solver "$solver" --precision "$precision"
        --init "$init" --max-iter 40 --report json --backend omp --threads 1)
  [ -n "${weighted:-}" ] && args+=(--weights "$dir/weights.txt")
  compare_ranks "$case"
done
# Ranks with OpenMP threads each: the same bits as one process with one thread.
args=(run --generate blobs:n=30000,k=8,d=3,spread=0.08 --seed 4 --k 10 --solver elkan --precision f32
      --max-iter 40 --report json --backend omp --threads 1)
"$cli" "${args[@]}" --labels-out "$dir/labels-t1" --centroids-out "$dir/centroids-t1" > /dev/null
args[${#args[@]}-1]=2
compare_ranks "elkan f32, 2 threads per rank"
cmp -s "$dir/labels-t1" "$dir/labels-1" && cmp -s "$dir/centroids-t1" "$dir/centroids-1" ||
  fail "elkan f32: 2 threads differ from 1 thread"
# Memory scale-out: a .npy input is read by each rank for its block only, the
# seeding runs over the blocks; the same files as one process that read it all.
"$cli" generate --generate blobs:n=23000,k=6,d=4,spread=0.1 --seed 9 --out "$dir/x.npy" > /dev/null
awk 'BEGIN { for (i = 0; i < 23000; ++i) print (i * 31) % 4 }' > "$dir/weights-npy.txt"
for case in "lloyd f64 kmeans++" "hamerly f32 greedy-kmeans++ weights" "elkan f64 maximin" "exponion f64 random weights"; do
  read -r solver precision init weighted <<<"$case"
  args=(run --input "$dir/x.npy" --k 7 --solver "$solver" --precision "$precision" --init "$init" --seed 2
        --max-iter 40 --report json --backend omp --threads 1)
  [ -n "${weighted:-}" ] && args+=(--weights "$dir/weights-npy.txt")
  compare_ranks ".npy read by blocks, $case" '"n":23000'
done
# Out of core (issue 42): each rank reads its block of the .npy a few packages at a
# time on every pass; the same files over 1, 2, 3 ranks, and as one process that loaded it
# (weighted: every rank holds every row's weight, the blocks read from the file; Elkan: its k + 1 bounds a row).
for case in "lloyd f32 kmeans++" "hamerly f64 kmeans++ weights" "elkan f32 maximin"; do
  read -r solver precision init weighted <<<"$case"
  args=(run --input "$dir/x.npy" --k 7 --solver "$solver" --precision "$precision" --init "$init" --seed 2
        --max-iter 40 --report json --backend omp --threads 1)
  [ -n "${weighted:-}" ] && args+=(--weights "$dir/weights-npy.txt")
  "$cli" "${args[@]}" --labels-out "$dir/labels-loaded" --centroids-out "$dir/centroids-loaded" > /dev/null
  args+=(--out-of-core on --memory-limit 40M)
  compare_ranks ".npy out of core, $case" '"out_of_core":'
  cmp -s "$dir/labels-loaded" "$dir/labels-1" && cmp -s "$dir/centroids-loaded" "$dir/centroids-1" ||
    fail ".npy out of core, $case: one process's files differ from the loaded run's"
done
# A headerless binary file (.fbin: uint32 rows, uint32 columns, float32 values) read by blocks and out of
# core over ranks: each rank reads its block; the same files over 1, 2, 3 ranks.
python3 - "$dir/x.npy" "$dir/x.fbin" <<'PY'
import array, struct, sys  # the standard library alone
data = open(sys.argv[1], "rb").read()
header = 10 + data[8] + 256 * data[9]
values = array.array("d")
values.frombytes(data[header:])
open(sys.argv[2], "wb").write(struct.pack("<II", len(values) // 4, 4) + array.array("f", values).tobytes())
PY
args=(run --input "$dir/x.fbin" --k 7 --solver hamerly --precision f32 --seed 2 --max-iter 40 --report json
      --backend omp --threads 1)
compare_ranks ".fbin read by blocks" '"n":23000'
args=(run --input "$dir/x.fbin" --k 7 --precision f64 --seed 2 --max-iter 40 --report json --backend omp --threads 1
      --out-of-core on --memory-limit 40M)
compare_ranks ".fbin out of core" '"out_of_core":'
# --geo with a .npy (columns 2 and 4 as latitude and longitude): each rank reads its rows, and a share
# of them for the projection's statistics, merged over the ranks (the latitude sum handed on from rank to
# rank); the same files as one process, loaded and out of core, in the frame chosen and the 3-D one forced.
args=(run --input "$dir/x.npy" --lat 2 --lon 4 --k 5 --seed 3 --max-iter 30 --report json --backend omp --threads 1)
compare_ranks ".npy --geo by blocks" '"geo_projection":'
args+=(--geo-projection sphere --out-of-core on --memory-limit 40M)
compare_ranks ".npy --geo out of core, 3-D" '"out_of_core":'
# Text input: each rank scans the lines that start in its share of the bytes and
# parses its block only (load_text_block); a header, comments and blank lines.
"$cli" generate --generate blobs:n=21000,k=5,d=3,spread=0.1 --seed 5 --out "$dir/plain.csv" > /dev/null
awk 'BEGIN { print "# exported points"; print "x,y,z" } { print } NR % 997 == 0 { print "" } NR % 1500 == 0 { print "# block " NR }' \
  "$dir/plain.csv" > "$dir/x.csv"
for case in "hamerly f64 kmeans++" "yinyang f32 random"; do
  read -r solver precision init <<<"$case"
  args=(run --input "$dir/x.csv" --k 6 --solver "$solver" --precision "$precision" --init "$init" --seed 3
        --max-iter 40 --report json --backend omp --threads 1)
  compare_ranks "text read by byte ranges, $case" '"n":21000'
done
# Text out of core: the first pass shared (each rank parses the lines that start in its share of the
# bytes; the counts and the index exchanged), then each rank parses its block again on every pass; the
# same files over 1, 2, 3 ranks, and as one process that loaded it.
args=(run --input "$dir/x.csv" --k 6 --solver hamerly --precision f64 --init kmeans++ --seed 3 --max-iter 40
      --report json --backend omp --threads 1)
"$cli" "${args[@]}" --labels-out "$dir/labels-loaded" --centroids-out "$dir/centroids-loaded" > /dev/null
args+=(--out-of-core on --memory-limit 40M)
compare_ranks "text out of core, hamerly f64 kmeans++" '"out_of_core":'
cmp -s "$dir/labels-loaded" "$dir/labels-1" && cmp -s "$dir/centroids-loaded" "$dir/centroids-1" ||
  fail "text out of core: one process's files differ from the loaded run's"
# --scores: the ranks solve their blocks and rank 0 alone reads every row for the scores
# (with the truth of generated data: ARI, NMI, centroid index): the same scores as one process.
args=(run --input "$dir/x.npy" --k 7 --solver hamerly --precision f64 --seed 2 --max-iter 40 --report json
      --backend omp --threads 1 --scores)
compare_ranks ".npy read by blocks, --scores" '"silhouette":'
args=(run --input "$dir/x.csv" --k 6 --solver lloyd --precision f32 --seed 3 --max-iter 40 --report json
      --backend omp --threads 1 --scores)
compare_ranks "text read by byte ranges, --scores" '"calinski_harabasz":'
args=(run --generate blobs:n=12000,k=5,d=3,spread=0.1 --seed 6 --k 5 --solver exponion --max-iter 40 --report json
      --backend omp --threads 1 --scores)
compare_ranks "generated blocks, --scores with the truth" '"ari":'
# A bad value in the last rank's block: one message, the one process's, and every rank
# stops (no rank left waiting in a collective: timeout).
awk 'NR == 20500 { $0 = $0 ",7" } { print }' "$dir/x.csv" > "$dir/bad.csv"
# x.npy with a NaN at [22000, 1] (float64, 4 columns; the header's length is bytes 8-9, little-endian).
cp "$dir/x.npy" "$dir/bad.npy"
read -r low high < <(od -An -tu1 -j8 -N2 "$dir/bad.npy")
printf '\000\000\000\000\000\000\370\177' |
  dd of="$dir/bad.npy" bs=1 seek=$((10 + low + 256 * high + (22000 * 4 + 1) * 8)) conv=notrunc status=none
# One process's failure, then over 2 and 3 ranks: a non-zero exit within the timeout
# (no rank left waiting in a collective) and exactly the one process's message, once.
# $1 describes the case; the rest are run's arguments.
compare_failure() {
  local what=$1 status expected
  shift
  "$cli" run "$@" > /dev/null 2> "$dir/err-1" && fail "$what: accepted"
  expected=$(grep "kmeans-cli run: " "$dir/err-1")
  [ -n "$expected" ] || fail "$what: one process printed no message"
  for ranks in 2 3; do
    runs=$((runs + 1))
    status=0
    timeout 120 "${mpi[@]}" -n "$ranks" "$cli" run "$@" > /dev/null 2> "$dir/err-$ranks" || status=$?
    [ "$status" = 124 ] && fail "$what, $ranks ranks: hung (killed after 120 s)"
    [ "$status" = 0 ] && fail "$what, $ranks ranks: accepted"
    [ "$(grep "kmeans-cli run: " "$dir/err-$ranks")" = "$expected" ] ||
      fail "$what, $ranks ranks: not the one process's message, once: $(grep "kmeans-cli run: " "$dir/err-$ranks")"
    echo "$what, $ranks ranks: exit $status, $(grep "kmeans-cli run: " "$dir/err-$ranks")"
  done
}
# A bad row or value in the last rank's block: reported by that rank.
compare_failure "bad.csv" --input "$dir/bad.csv" --k 4 --backend omp --threads 1
compare_failure "bad.npy" --input "$dir/bad.npy" --k 4 --backend omp --threads 1
compare_failure "bad.csv out of core" --input "$dir/bad.csv" --k 4 --backend omp --threads 1 --out-of-core on \
  --memory-limit 40M
compare_failure "bad.npy out of core" --input "$dir/bad.npy" --k 4 --backend omp --threads 1 --out-of-core on \
  --memory-limit 40M
compare_failure "bad.npy --geo" --input "$dir/bad.npy" --lat 2 --lon 4 --k 4 --backend omp --threads 1
compare_failure "bad.npy --geo out of core" --input "$dir/bad.npy" --lat 2 --lon 4 --k 4 --backend omp --threads 1 \
  --out-of-core on --memory-limit 40M
# Met by every rank alike: reported by rank 0 only.
echo "1,2" > "$dir/init-2d.csv"
compare_failure "k > n" --input "$dir/x.csv" --k 30000 --backend omp --threads 1
compare_failure "--init of the wrong shape" --input "$dir/x.csv" --k 3 --init "$dir/init-2d.csv" --backend omp --threads 1
compare_failure "generated, --init of the wrong shape" --generate blobs:n=9000 --k 3 --init "$dir/init-2d.csv"
compare_failure "generated, a bad spec" --generate blobs:n=9000,colour=3 --k 3
compare_failure "generated, k > n" --generate uniform:n=500,d=2 --k 600
compare_failure "unwritable output" --input "$dir/x.csv" --k 3 --labels-out "$dir/no-such-folder/labels.txt"
compare_failure "bad option value" --input "$dir/x.csv" --k 3 --report yaml
compare_failure "bad option" --input "$dir/x.csv" --k three
compare_failure "missing input" --input "$dir/no-such-file.csv" --k 3
# Other commands would run M whole copies: refused.
if "${mpi[@]}" -n 2 "$cli" generate --generate blobs:n=100 --out "$dir/g.csv" > "$dir/gen.out" 2>&1; then
  fail "generate ran as 2 ranks"
fi
grep -q "does not run over MPI ranks" "$dir/gen.out" || fail "no refusal message"
echo "cli_ranks: $runs runs over ranks, $failures failures: $([ "$failures" = 0 ] && echo PASS || echo FAIL)"
[ "$failures" = 0 ]
