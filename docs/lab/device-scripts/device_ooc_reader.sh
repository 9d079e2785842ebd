#!/usr/bin/env bash
# On the lent machine's host (CPU only; issue 42, out of core >= 80 % of the disk): A/B of
# the out-of-core reader's variants, chosen by environment knobs of the packed experiment
# build (KMS_DEVICE_CARRY=.devcarry-ooc, docs/lab/device-scripts/device_pack.sh build-cpu
# build-cpu/bench/bench_row_source), interleaved:
#  1. the reader alone: bench_row_source (the .npy read through kms::read_blocks with no
#     work, beside read() of 16 MiB dropped behind = dd bs=16M iflag=nocache), per variant;
#  2. kmeans-cli run --out-of-core on at 16 threads (k = 2, 64), old reader against new:
#     each step's file bytes per second against dd's rates measured in the same run.
# Knobs: KMS_OOC_ASYNC=1 (a std::async per block, the old read_blocks), KMS_OOC_CHECK=0 (the
# finiteness check inline, the old way; 1: on a helper thread, overlapping the next piece's
# read; 2: by the consumer over OpenMP threads before the body), KMS_OOC_PIECE_MIB, KMS_OOC_AHEAD (POSIX_FADV_WILLNEED pieces ahead), KMS_OOC_SEQ=1
# (POSIX_FADV_SEQUENTIAL at open), KMS_OOC_PROFILE=1 (the reader's seconds in read/drop/check).
# Usage: KMS_DEVICE_CARRY=.devcarry-ooc OUT=$OUT docs/lab/device-scripts/device_ooc_reader.sh
# (KMS_OOC_GIB, default 2: the file's size; runs stop starting after 150 s and 200 s: under 4 minutes.)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
bench="$work/bin/bench_row_source"
gib=${KMS_OOC_GIB:-2}
data=$(mktemp -d /var/tmp/kms-ooc.XXXXXX)
trap 'rm -rf "$data" "$work"' EXIT
{
  echo "date: $(date -u)"; echo "cores: $(nproc), $(LC_ALL=C lscpu | sed -n 's/^Model name: *//p')"
  free -g | head -2; df -h /var/tmp | tail -1
  dev=$(basename "$(df --output=source /var/tmp | tail -1)"); dev=${dev%%[0-9]*}
  for q in read_ahead_kb max_sectors_kb nr_requests scheduler; do echo "$dev $q: $(cat /sys/block/$dev/queue/$q 2>/dev/null)"; done
  cat /sys/fs/cgroup/memory.max 2>/dev/null
} 2>&1 | tee "$out/machine.txt"

# The file: a 16 MiB tile of blobs (float64, d = 16) repeated (as bench/out_of_core.sh).
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
f="$data/p.npy"
echo "file: $rows x $cols float64, $(stat -c %s "$f") bytes" | tee -a "$out/machine.txt"

dd_rate() {  # MB/s of dd over the file, cold, with input flags $1
  dd if="$f" iflag=nocache count=0 status=none
  LC_ALL=C dd if="$f" of=/dev/null bs=16M iflag="$1" 2>&1 | awk -v b="$(stat -c %s "$f")" '/copied/ { printf "%.0f\n", b / $(NF-3) / 1e6 }'
}

# 1. The whole run, 16 threads, old reader against the new ones (new: the check on a helper
# thread per piece; new2: the check by the consumer over OpenMP threads before the body).
for run in "2 old" "2 new" "2 new2" "2 old" "2 new" "2 new2" "64 new" "64 new2" "64 old"; do
  set -- $run; k=$1 name=$2
  [ "$SECONDS" -lt 150 ] || break
  case $name in
    old) knobs="KMS_OOC_ASYNC=1 KMS_OOC_CHECK=0" ;;
    new) knobs="KMS_OOC_CHECK=1" ;;
    new2) knobs="KMS_OOC_CHECK=2" ;;
  esac
  log="$out/run-$k-$name-$SECONDS"
  env $knobs KMS_OOC_PROFILE=1 timeout 80 "$cli" run --input "$f" --k "$k" --seed 1 --init random --max-iter 3 --tol 0 \
    --backend omp --threads 16 --out-of-core on --memory-limit 2G --report json > "$log.jsonl" 2> "$log.err"
  rates=$(grep '"type":"iteration"' "$log.jsonl" | sed -n '2,$p' |
    sed 's/.*"time_total_ms":\([0-9.e+-]*\).*"streamed_bytes":\([0-9]*\).*/\1 \2/' | awk '{ printf "%.0f ", $2 / ($1 / 1000) / 1e6 }')
  echo "k=$k $name ($knobs): steps 2.. MB/s: $rates| $(tr '\n' ' ' < "$log.err") | dd nocache $(dd_rate nocache) MB/s"
done 2>&1 | tee "$out/runs.txt"

# 2. The reader alone, variants interleaved, rounds while time is left (~200 s in all).
variants=("old:KMS_OOC_ASYNC=1 KMS_OOC_CHECK=0"
          "check:KMS_OOC_ASYNC=1 KMS_OOC_CHECK=1"
          "new:KMS_OOC_CHECK=1"
          "new2:KMS_OOC_CHECK=2"
          "new-seq:KMS_OOC_CHECK=1 KMS_OOC_SEQ=1")
for round in 1 2 3; do
  [ "$SECONDS" -lt 200 ] || break
  echo "round $round dd: direct $(dd_rate direct) MB/s, nocache $(dd_rate nocache) MB/s"
  for v in "${variants[@]}"; do
    echo "round $round ${v%%:*} (${v#*:}): $(env ${v#*:} KMS_OOC_PROFILE=1 timeout 60 "$bench" "$f" --repeats 1 2>&1 | tr '\n' ' ')"
  done
done 2>&1 | tee "$out/reader.txt"
echo "total: $SECONDS s"
