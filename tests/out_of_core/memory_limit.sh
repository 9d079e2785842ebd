#!/usr/bin/env bash
# Out of core under a real memory limit (issue 42): kmeans-cli run on a .npy four times
# its address-space limit (ulimit -v: the CLI's own mapped size + 64 MiB) reads it a block at a time by itself
# (--out-of-core auto) and writes the labels and centroid files byte for byte those of
# an in-memory run without the limit, after as many iterations. Loading the file
# under the limit must fail (the limit binds), with the loader's message. The same for
# --geo with two of its columns as latitude and longitude, for a .fvecs file, with --weights, and for a CSV
# (text: parsed again on every pass).
# usage: memory_limit.sh KMEANS_CLI
set -euo pipefail
cli=$1
dir=$(mktemp -d)
trap '[ -n "${KMS_KEEP:-}" ] || rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# The limit: the CLI's own address space (its libraries: a CUDA build maps ~17 MiB more than a
# CPU-only one), read while it waits on a FIFO, plus 64 MiB for the work.
mkfifo "$dir/wait"
"$cli" run --input "$dir/wait" --k 2 > /dev/null 2>&1 &
waiting=$!
baseline_kib=0
for try in 1 2 3 4 5 6 7 8 9 10; do
  sleep 0.2
  baseline_kib=$(awk '/^VmSize/ {print $2}' "/proc/$waiting/status" 2> /dev/null || true)
  [ "${baseline_kib:-0}" -gt 0 ] && break
done
kill "$waiting" 2> /dev/null; wait "$waiting" 2> /dev/null || true
[ "${baseline_kib:-0}" -gt 0 ] || { echo "FAIL could not read the CLI's address space"; exit 1; }
limit_mib=$(( (baseline_kib + 1023) / 1024 + 64 ))
cols=64 tile_rows=8192                   # float64 tiles of 4 MiB of blobs, repeated: no large generator run
tile_bytes=$((tile_rows * cols * 8))
copies_needed=$(( (4 * limit_mib * 1048576 + tile_bytes - 1) / tile_bytes ))  # the points: 4 x the limit
rows=$((copies_needed * tile_rows))
"$cli" generate --generate "blobs:n=$tile_rows,k=6,d=$cols,spread=0.2" --seed 4 --out "$dir/tile.npy" > /dev/null
header_bytes=$(($(stat -c %s "$dir/tile.npy") - tile_bytes))
tail -c "$tile_bytes" "$dir/tile.npy" > "$dir/tile-body"
cp "$dir/tile-body" "$dir/body"
copies=1
while [ $((copies * 2)) -le "$copies_needed" ]; do  # doubling, then single tiles up to the count
  cat "$dir/body" "$dir/body" > "$dir/body2" && mv "$dir/body2" "$dir/body"
  copies=$((copies * 2))
done
while [ "$copies" -lt "$copies_needed" ]; do cat "$dir/tile-body" >> "$dir/body"; copies=$((copies + 1)); done
rm -f "$dir/tile-body"
# A NumPy 1.0 header for (rows, cols) float64, padded to 64 bytes as NumPy pads it.
dict="{'descr': '<f8', 'fortran_order': False, 'shape': ($rows, $cols), }"
pad=$(( (64 - (10 + ${#dict} + 1) % 64) % 64 ))
length=$(( ${#dict} + pad + 1 ))
{
  printf '\x93NUMPY\x01\x00'
  printf "\\x$(printf %02x $((length % 256)))\\x$(printf %02x $((length / 256)))"
  printf '%s%*s\n' "$dict" "$pad" ""
  cat "$dir/body"
} > "$dir/points.npy"
rm -f "$dir/body"
[ "$(stat -c %s "$dir/points.npy")" -ge $((4 * limit_mib * 1048576)) ] || fail "the data are not 4 x the limit"
[ "$header_bytes" -gt 0 ] || fail "tile header"

iterations() { tail -n 1 "$1" | grep -o '"iterations":[0-9]*'; }
# One run in memory (two threads) and the same run under the limit (one thread), which must go out of core
# by itself: the same labels, centroids and iteration count, whatever the threads and blocks. $1 names the
# case (messages, files: $dir/$1-out-limited is the limited run's report); the rest are the run's arguments.
limited_equals_memory() {
  local name=$1 status=0
  shift
  "$cli" "$@" --threads 2 --labels-out "$dir/$name-labels-memory" --centroids-out "$dir/$name-centroids-memory" \
    > "$dir/$name-out-memory"
  (ulimit -v $((limit_mib * 1024)) && exec "$cli" "$@" --threads 1 --labels-out "$dir/$name-labels-limited" \
     --centroids-out "$dir/$name-centroids-limited") > "$dir/$name-out-limited" 2> "$dir/$name-err-limited" || status=$?
  [ "$status" = 0 ] || fail "$name: the run under ulimit -v ${limit_mib} MiB ended with status $status: $(cat "$dir/$name-err-limited")"
  grep -q '"out_of_core":{[^}]*"automatic":true' "$dir/$name-out-limited" || fail "$name: the limited run did not go out of core by itself"
  cmp -s "$dir/$name-labels-memory" "$dir/$name-labels-limited" || fail "$name: labels differ"
  cmp -s "$dir/$name-centroids-memory" "$dir/$name-centroids-limited" || fail "$name: centroids differ"
  [ -n "$(iterations "$dir/$name-out-memory")" ] && [ "$(iterations "$dir/$name-out-memory")" = "$(iterations "$dir/$name-out-limited")" ] ||
    fail "$name: iterations: $(iterations "$dir/$name-out-limited") out of core, $(iterations "$dir/$name-out-memory") in memory"
}
args=(run --input "$dir/points.npy" --k 6 --seed 1 --init random --max-iter 3 --backend omp --report json)
limited_equals_memory npy "${args[@]}"
# --weights out of core (every row's weight in memory, 8 bytes a row, beside the blocks): the
# in-memory weighted run's files, a zero weight every 11th row.
python3 -c "import sys; sys.stdout.write(''.join('0\n' if i % 11 == 0 else f'{0.5 + (i * 7) % 5 / 4}\n' for i in range($rows)))" \
  > "$dir/weights.txt"
limited_equals_memory weighted "${args[@]}" --weights "$dir/weights.txt"
cmp -s "$dir/npy-centroids-memory" "$dir/weighted-centroids-memory" && fail "weighted: the weights changed nothing"
echo "weighted: $(iterations "$dir/weighted-out-limited"), out of core: $(grep -o '"out_of_core":{[^}]*}' "$dir/weighted-out-limited")"
# The limit binds: the same run told to load the points cannot.
status=0
(ulimit -v $((limit_mib * 1024)) && exec "$cli" "${args[@]}" --threads 1 --out-of-core off) > /dev/null 2> "$dir/err-off" || status=$?
[ "$status" != 0 ] && grep -q "not enough memory" "$dir/err-off" ||
  fail "loading 256 MiB under ulimit -v ${limit_mib} MiB did not fail as it should (status $status): $(cat "$dir/err-off")"
# --geo out of core (docs/geographic.md): columns 3 and 7 of the same file as latitude and longitude (the
# blobs lie within 25 degrees of 0): the projection chosen from one pass over the file, each block projected as
# read; the in-memory run's files, in the frame chosen (3-D: the blobs span 50 degrees) and the equirectangular forced.
for frame in auto equirectangular; do
  limited_equals_memory "geo-$frame" run --input "$dir/points.npy" --geo --lat 3 --lon 7 --geo-projection "$frame" --k 5 \
    --seed 2 --init random --max-iter 3 --backend omp --report json
  projection() { tail -n 1 "$1" | grep -o '"geo_projection":"[^"]*"'; }
  [ -n "$(projection "$dir/geo-$frame-out-memory")" ] &&
    [ "$(projection "$dir/geo-$frame-out-memory")" = "$(projection "$dir/geo-$frame-out-limited")" ] ||
    fail "geo $frame: projection $(projection "$dir/geo-$frame-out-limited") out of core, $(projection "$dir/geo-$frame-out-memory") in memory"
  echo "geo $frame: $(projection "$dir/geo-$frame-out-limited"), $(iterations "$dir/geo-$frame-out-limited"), out of core: $(grep -o '"out_of_core":{[^}]*}' "$dir/geo-$frame-out-limited")"
done
# A headerless binary file, .fvecs (the ANN benchmarks' float32 rows, each led by its int32 dimension), 4 x
# the limit, with Hamerly (its bounds in memory): read out of core by itself, the in-memory run's files.
python3 - "$dir/tile.npy" "$dir/points.fvecs" $((4 * limit_mib * 1048576)) "$header_bytes" "$cols" <<'PY'
import array, struct, sys  # the standard library alone: no NumPy needed
path, out_path, need, header, cols = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
values = array.array("d")
values.frombytes(open(path, "rb").read()[header:])
prefix = struct.pack("<i", cols)
body = b"".join(prefix + array.array("f", values[i:i + cols]).tobytes() for i in range(0, len(values), cols))
written = 0
with open(out_path, "wb") as out:
    while written < need:
        out.write(body)
        written += len(body)
PY
limited_equals_memory fvecs run --input "$dir/points.fvecs" --k 6 --seed 3 --init random --max-iter 3 --backend omp \
  --precision f32 --solver hamerly --report json
echo ".fvecs: $(($(stat -c %s "$dir/points.fvecs") / 1048576)) MiB, $(iterations "$dir/fvecs-out-limited"), out of core: $(grep -o '"out_of_core":{[^}]*}' "$dir/fvecs-out-limited")"
# A CSV (a header, then the tile's values with 3 decimals, repeated) 4 x the limit: parsed once for its rows
# and its index, then again a block at a time on every pass (docs/scale-out.md), by itself: the in-memory
# run's files. (--tol 0 and random seeding: 5 passes of ~350 MB of text, ~5 CPU-s on the dev VM.)
python3 - "$dir/tile.npy" "$dir/tile.csv" "$header_bytes" "$cols" <<'PY'
import array, sys
path, out_path, header, cols = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
values = array.array("d")
values.frombytes(open(path, "rb").read()[header:])
with open(out_path, "w") as out:
    out.write("".join(",".join("%.3f" % v for v in values[i:i + cols]) + "\n" for i in range(0, len(values), cols)))
PY
tile_text=$(stat -c %s "$dir/tile.csv")
text_copies=$(( (4 * limit_mib * 1048576 + tile_text - 1) / tile_text ))
cp "$dir/tile.csv" "$dir/body.csv"
copies=1
while [ $((copies * 2)) -le "$text_copies" ]; do
  cat "$dir/body.csv" "$dir/body.csv" > "$dir/body2.csv" && mv "$dir/body2.csv" "$dir/body.csv"
  copies=$((copies * 2))
done
while [ "$copies" -lt "$text_copies" ]; do cat "$dir/tile.csv" >> "$dir/body.csv"; copies=$((copies + 1)); done
{ seq -s, -f 'c%g' 1 "$cols"; cat "$dir/body.csv"; } > "$dir/points.csv"
rm -f "$dir/body.csv" "$dir/tile.csv"
[ "$(stat -c %s "$dir/points.csv")" -ge $((4 * limit_mib * 1048576)) ] || fail "the CSV is not 4 x the limit"
limited_equals_memory csv run --input "$dir/points.csv" --k 6 --seed 1 --init random --max-iter 2 --tol 0 --backend omp \
  --report json
echo "CSV: $(($(stat -c %s "$dir/points.csv") / 1048576)) MiB, $(iterations "$dir/csv-out-limited"), out of core: $(grep -o '"out_of_core":{[^}]*}' "$dir/csv-out-limited")"
rm -f "$dir/points.csv"
# Elkan keeps k + 1 bounds a row in memory beside the blocks: at k = 64 (520 bytes a row, more than the
# points' 512) they cannot fit the limit, and the plan says so, naming the solvers whose bounds fit,
# before any allocation fails.
status=0
(ulimit -v $((limit_mib * 1024)) && exec "$cli" run --input "$dir/points.npy" --k 64 --solver elkan --seed 1 --init random \
   --max-iter 3 --backend omp --threads 1) > /dev/null 2> "$dir/err-elkan" ||
  status=$?
[ "$status" = 2 ] && grep -q "out of core: --solver elkan keeps its bounds in memory, 520 bytes a row at k = 64" "$dir/err-elkan" &&
  grep -q "blocks with bounds that fit (bytes a row): lloyd (0), hamerly (16)" "$dir/err-elkan" ||
  fail "elkan at k = 64 under ulimit -v ${limit_mib} MiB was not refused by the plan (status $status): $(cat "$dir/err-elkan")"
# --solver auto out of core: the plan keeps the rule's pick where its bounds fit the limit beside the blocks
# (400 000 x 2-D, k = 40: Hamerly, 16 bytes a row, 6.1 MiB), else the next that fits (Lloyd), and says so;
# the loaded run's centroid file either way.
"$cli" generate --generate uniform:n=400000,d=2 --seed 3 --out "$dir/auto.npy" > /dev/null
auto_args=(run --input "$dir/auto.npy" --k 40 --solver auto --init random --seed 1 --max-iter 3 --threads 1 --backend omp
           --report json)
"$cli" "${auto_args[@]}" --centroids-out "$dir/auto-centroids-memory" > /dev/null
for case in "48M hamerly (out of core; the back end's rule: hamerly: low dimension" \
            "33M lloyd (out of core; the back end's rule: hamerly: low dimension, 32 to 499 clusters (n = 400000, d = 2, k = 40); its bounds, 16 bytes a row, do not fit the memory limit, lloyd's do)"; do
  read -r limit choice <<<"$case"
  "$cli" "${auto_args[@]}" --out-of-core on --memory-limit "$limit" --centroids-out "$dir/auto-centroids-$limit" \
    > "$dir/auto-out-$limit"
  grep -qF "\"solver\":\"${choice%% *}/" "$dir/auto-out-$limit" && grep -qF "\"solver_choice\":\"$choice" "$dir/auto-out-$limit" ||
    fail "auto under --memory-limit $limit: $(grep -o '"solver[a-z_]*":"[^"]*"' "$dir/auto-out-$limit"), expected $choice"
  cmp -s "$dir/auto-centroids-memory" "$dir/auto-centroids-$limit" || fail "auto under --memory-limit $limit: centroids differ"
done
echo "in memory: $(iterations "$dir/npy-out-memory"); $((rows * cols * 8 / 1048576)) MiB of points under ${limit_mib} MiB (the CLI's own ${baseline_kib} KiB + 64 MiB): $(grep -o '"out_of_core":{[^}]*}' "$dir/npy-out-limited")"
echo "failures: $([ $failures = 0 ] && echo PASS || echo $failures)"
[ $failures = 0 ]
