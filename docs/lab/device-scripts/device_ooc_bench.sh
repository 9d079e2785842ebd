#!/usr/bin/env bash
# On the lent machine's host (CPU only; issue 42, out of core >= 80 % of the disk): the
# out-of-core reader before and after, interleaved, on one .npy in /var/tmp:
#  - old: bin/kmeans-cli-old (main a9b7ed5: POSIX_FADV_DONTNEED after every 16 MiB read);
#  - new: bin/kmeans-cli (one POSIX_FADV_DONTNEED a block of <= 64 MiB, on 2 MiB folio boundaries);
#  - new-passive: new with OMP_WAIT_POLICY=passive (waiting OpenMP threads sleep);
#  - loaded: new with --out-of-core off (the points in memory: the work alone, the file's bytes
#    per step time);
# each: kmeans-cli run (Lloyd, --init random, --tol 0, KMS_OOC_THREADS threads): each step's file
# bytes per second, median over steps 2.., beside dd's cold rates of the same file measured after
# each run (O_DIRECT and buffered with the pages dropped behind, bs=16M; "the disk" is the better);
# the runs' centroid files and summaries compared (the same bits); the reader alone
# (bench_row_source, new and old) at 64 MiB blocks.
# (Round 1, 2026-12-07, also ran "block", this reader by a lab switch, and RWF_DONTCACHE reads as
# "new": docs/benchmarks.md.)
# Pack: KMS_DEVICE_CARRY=.devcarry-ooc docs/lab/device-scripts/device_pack.sh build-rel
# build-rel/bench/bench_row_source .../kmeans-cli-old .../bench_row_source-old (extra executables
# keep their names).
# Usage: KMS_DEVICE_CARRY=.devcarry-ooc OUT=$OUT docs/lab/device-scripts/device_ooc_bench.sh
# (KMS_OOC_GIB, default 2; KMS_OOC_THREADS, default nproc up to 16; no run starts after
# KMS_OOC_BUDGET = 170 s; each run at most 40 s. About 3.5 minutes; KMS_OOC_RUNS picks the runs.)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
old="$work/bin/kmeans-cli-old"
gib=${KMS_OOC_GIB:-2}
threads=${KMS_OOC_THREADS:-$(nproc)}
[ "$threads" -gt 16 ] && threads=16
budget=${KMS_OOC_BUDGET:-170}
data=$(mktemp -d /var/tmp/kms-ooc.XXXXXX)
trap 'rm -rf "$data" "$work"' EXIT
{
  echo "date: $(date -u)"; echo "cores: $(nproc) (threads $threads), $(LC_ALL=C lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  free -g | head -2; df -h /var/tmp | tail -1
  dev=$(basename "$(df --output=source /var/tmp | tail -1)"); dev=${dev%%[0-9]*}
  for q in read_ahead_kb max_sectors_kb; do echo "$dev $q: $(cat /sys/block/$dev/queue/$q 2>/dev/null)"; done
  echo "kernel: $(uname -r); /var/tmp on $(stat -f -c %T /var/tmp) ($(df --output=source /var/tmp | tail -1))"
} 2>&1 | tee "$out/machine.txt"

# The file: a 16 MiB tile of blobs (float64, d = 16) repeated, as bench/out_of_core.sh makes it.
cols=16 tile_rows=131072
"$cli" generate --generate "blobs:n=$tile_rows,k=32,d=$cols,spread=0.3" --seed 1 --out "$data/tile.npy" > /dev/null
tail -c $((tile_rows * cols * 8)) "$data/tile.npy" > "$data/body"
copies=1
while [ $copies -lt $((gib * 64)) ]; do cat "$data/body" "$data/body" > "$data/b2" && mv "$data/b2" "$data/body"; copies=$((copies * 2)); done
rows=$((copies * tile_rows))
dict="{'descr': '<f8', 'fortran_order': False, 'shape': ($rows, $cols), }"
pad=$(( (64 - (10 + ${#dict} + 1) % 64) % 64 )); length=$(( ${#dict} + pad + 1 ))
{ printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((length % 256)))\\x$(printf %02x $((length / 256)))"
  printf '%s%*s\n' "$dict" "$pad" ""; cat "$data/body"; } > "$data/p.npy"
rm -f "$data/body" "$data/tile.npy"; sync
f="$data/p.npy"; bytes=$(stat -c %s "$f")
echo "file: $rows x $cols float64, $bytes bytes" | tee -a "$out/machine.txt"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
dd_rate() {  # MB/s of dd over the file, cold, input flags $1
  dd if="$f" iflag=nocache count=0 status=none
  LC_ALL=C dd if="$f" of=/dev/null bs=16M iflag="$1" 2>&1 | awk -v b="$bytes" '/copied/ { printf "%.0f\n", b / $(NF-3) / 1e6 }'
}

echo "| k | build | median step (ms) | out of core (MB/s) | dd O_DIRECT (MB/s) | dd buffered cold (MB/s) | share of the better |" > "$out/summary.md"
echo "|---:|---|---:|---:|---:|---:|---:|" >> "$out/summary.md"
# Priority order: a cut budget leaves out the last.
# KMS_OOC_RUNS (a list of "k build" pairs separated by commas) replaces the default order.
IFS=, read -r -a runs <<< "${KMS_OOC_RUNS:-2 old,2 new,2 old,2 new,64 old,64 new,64 loaded,2 loaded,2 new-passive,2 old,2 new}"
for run in "${runs[@]}"; do
  [ "$SECONDS" -lt "$budget" ] || { echo "budget: $run not started"; continue; }
  set -- $run; k=$1 name=$2
  exe=$cli; env=(); mode=on; [ "$name" = old ] && exe=$old
  [ "$name" = loaded ] && mode=off
  [ "$name" = new-passive ] && env=(OMP_WAIT_POLICY=passive)
  log="$out/run-$k-$name-$SECONDS"
  start=$SECONDS
  env "${env[@]}" timeout 40 "$exe" run --input "$f" --k "$k" --seed 1 --init random --max-iter 4 --tol 0 --backend omp \
    --threads "$threads" --out-of-core $mode --memory-limit 1G --report json --centroids-out "$data/c-$k-$name.csv" \
    > "$log.jsonl" 2> "$log.err"
  echo "k=$k $name: exit $? in $((SECONDS - start)) s"
  steps=$(grep '"type":"iteration"' "$log.jsonl" | sed -n '2,$p' |
    sed 's/.*"time_total_ms":\([0-9.e+-]*\).*"streamed_bytes":\([0-9]*\).*/\1 \2/; s/.*"time_total_ms":\([0-9.e+-]*\).*/\1 0/')
  step_ms=$(echo "$steps" | awk '{ printf "%.0f\n", $1 }' | median)
  rate=$(echo "$steps" | awk -v b="$bytes" -v m="$mode" '{ printf "%.0f\n", (m == "off" ? b : $2) / ($1 / 1000) / 1e6 }' | median)
  direct=$(dd_rate direct); cold=$(dd_rate nocache)
  best=$(( direct > cold ? direct : cold ))
  echo "| $k | $name | $step_ms | $rate | $direct | $cold | $(awk -v r="$rate" -v d="$best" 'BEGIN { printf "%.0f %%", 100 * r / d }') |" >> "$out/summary.md"
  grep '"type":"summary"' "$log.jsonl" | grep -o '"iterations":[0-9]*\|"inertia":[0-9.e+-]*' | tr '\n' ' ' > "$data/s-$k-$name"
done 2>&1 | tee "$out/runs.txt"
cat "$out/summary.md"
for k in 2 64; do
  for name in new new-passive loaded; do
    [ -f "$data/c-$k-$name.csv" ] && [ -f "$data/c-$k-old.csv" ] || continue
    if cmp -s "$data/c-$k-$name.csv" "$data/c-$k-old.csv" && cmp -s "$data/s-$k-$name" "$data/s-$k-old"; then
      echo "k=$k: $name and old: the same centroid file and summary ($(cat "$data/s-$k-old"))"
    else
      echo "k=$k: $name and old DIFFER: $(cat "$data/s-$k-$name") against $(cat "$data/s-$k-old")"
    fi
  done
done 2>&1 | tee "$out/same.txt"
# The reader alone (no work), new and old, alternating with the disk; while time is left.
for name in new old; do
  [ "$SECONDS" -lt $((budget + 20)) ] || { echo "budget: reader $name not run"; continue; }
  exe="$work/bin/bench_row_source"; env=()
  [ "$name" = old ] && exe="$work/bin/bench_row_source-old"
  [ "$name" = block ] && env=(KMS_OOC_DROP=block)
  echo "reader $name:"; env "${env[@]}" OMP_NUM_THREADS=$threads timeout 20 "$exe" "$f" --repeats 2 2>&1
done 2>&1 | tee "$out/reader.txt"
echo "total: $SECONDS s"
