#!/usr/bin/env bash
# Out of core against the disk (issue 42): kmeans-cli run --out-of-core on reads a .npy a
# block at a time on every step; its throughput (bytes of the file per second of step)
# beside the disk's sequential read rate, measured in the same run on the same file.
#
# usage: bench/out_of_core.sh [--cli PATH] [--size-gib N] [--k "8 64"] [--threads T]
#                             [--iterations I] [--memory-limit SIZE] [--dir DIR] [--out FILE]
# The file (float64, d = 16: repeats of a 16 MiB tile of blobs, made with kmeans-cli
# generate and cat) is written to DIR (default: a temporary folder on the working
# tree's disk) and removed after. The disk's rate: dd of the whole file, O_DIRECT
# (no page cache), and buffered after its pages were dropped (dd iflag=nocache), each
# three times; the better median is "the disk". The run drops each block it read from
# the page cache (kms::open_matrix_rows), so every step reads the disk as a file larger
# than memory would. Throughput: streamed_bytes / time_total_ms of each step, median
# over steps 2..I (step 1 also pays the first read of the run); beside it the same steps
# on the loaded points (--out-of-core off: the work alone). Prints a Markdown
# table (and writes it to FILE with --out).
set -euo pipefail
cli=build/app/kmeans-cli
size_gib=4
k_values="8 64"
threads=2
iterations=6
memory_limit=1G
dir=
out=
while [ $# -gt 0 ]; do
  case $1 in
    --cli) cli=$2; shift 2 ;;
    --size-gib) size_gib=$2; shift 2 ;;
    --k) k_values=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --memory-limit) memory_limit=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "out_of_core.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$cli" ] || { echo "out_of_core.sh: no kmeans-cli at $cli (--cli PATH)" >&2; exit 1; }
work=$(mktemp -d "${dir:-$PWD}/kms-ooc-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

cols=16
tile_rows=131072                                   # 16 MiB of float64
rows=$((size_gib * 1024 * 1024 * 1024 / (cols * 8)))
"$cli" generate --generate "blobs:n=$tile_rows,k=32,d=$cols,spread=0.3" --seed 1 --out "$work/tile.npy" > /dev/null
tail -c $((tile_rows * cols * 8)) "$work/tile.npy" > "$work/body"
copies=1
while [ $copies -lt $((rows / tile_rows)) ]; do
  cat "$work/body" "$work/body" > "$work/body2" && mv "$work/body2" "$work/body"
  copies=$((copies * 2))
done
rows=$((copies * tile_rows))
dict="{'descr': '<f8', 'fortran_order': False, 'shape': ($rows, $cols), }"
pad=$(( (64 - (10 + ${#dict} + 1) % 64) % 64 ))
length=$(( ${#dict} + pad + 1 ))
{
  printf '\x93NUMPY\x01\x00'
  printf "\\x$(printf %02x $((length % 256)))\\x$(printf %02x $((length / 256)))"
  printf '%s%*s\n' "$dict" "$pad" ""
  cat "$work/body"
} > "$work/points.npy"
rm -f "$work/body" "$work/tile.npy"
bytes=$(stat -c %s "$work/points.npy")
sync

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
dd_rate() {  # MB/s of one dd over the file with input flags $1
  local seconds
  seconds=$(LC_ALL=C dd if="$work/points.npy" of=/dev/null bs=16M iflag="$1" 2>&1 | awk '/copied/ { print $(NF-3) }')
  awk -v b="$bytes" -v s="$seconds" 'BEGIN { printf "%.0f\n", b / s / 1e6 }'
}
disk_rates() {  # the two medians of three: O_DIRECT, buffered cold
  local direct=() cold=()
  for _ in 1 2 3; do
    direct+=("$(dd_rate direct)")
    dd if="$work/points.npy" iflag=nocache count=0 status=none  # drop its pages
    cold+=("$(dd_rate nocache)")
    dd if="$work/points.npy" iflag=nocache count=0 status=none
  done
  echo "$(printf '%s\n' "${direct[@]}" | median) $(printf '%s\n' "${cold[@]}" | median)"
}

read -r direct_before cold_before < <(disk_rates)
table="| k | threads | steps | median step (ms) | out of core (MB/s) | in memory (MB/s) | disk (MB/s) | share of the disk |
|---:|---:|---:|---:|---:|---:|---:|---:|"
for k in $k_values; do
  "$cli" run --input "$work/points.npy" --k "$k" --seed 1 --init random --max-iter "$iterations" --tol 0 \
    --backend omp --threads "$threads" --out-of-core on --memory-limit "$memory_limit" --report json > "$work/run-$k.jsonl"
  # Each step's MB/s (its bytes over its time), median over steps 2..I.
  step_rates=$(grep '"type":"iteration"' "$work/run-$k.jsonl" | sed -n '2,$p' |
    sed 's/.*"time_total_ms":\([0-9.e+-]*\).*"streamed_bytes":\([0-9]*\).*/\1 \2/' |
    awk '{ printf "%.1f %.0f\n", $1, $2 / ($1 / 1000) / 1e6 }')
  # The same steps on the loaded points (the work alone, no reads): what the machine computes.
  memory_rate=$("$cli" run --input "$work/points.npy" --k "$k" --seed 1 --init random --max-iter "$iterations" --tol 0 \
    --backend omp --threads "$threads" --out-of-core off --report json | grep '"type":"iteration"' | sed -n '2,$p' |
    sed 's/.*"time_total_ms":\([0-9.e+-]*\).*/\1/' | awk -v b="$bytes" '{ printf "%.0f\n", b / ($1 / 1000) / 1e6 }' | median)
  step_ms=$(echo "$step_rates" | awk '{ print $1 }' | median)
  rate=$(echo "$step_rates" | awk '{ print $2 }' | median)
  read -r direct_after cold_after < <(disk_rates)
  disk=$(printf '%s\n' "$direct_before" "$cold_before" "$direct_after" "$cold_after" | sort -g | tail -1)
  share=$(awk -v r="$rate" -v d="$disk" 'BEGIN { printf "%.0f %%", 100 * r / d }')
  table+="
| $k | $threads | $(echo "$step_rates" | wc -l) | $step_ms | $rate | $memory_rate | $disk | $share |"
  echo "k = $k: steps at $rate MB/s (median step $step_ms ms); disk O_DIRECT $direct_before/$direct_after MB/s, buffered cold $cold_before/$cold_after MB/s" >&2
done
machine="$(nproc) cores ($(LC_ALL=C lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1 /proc/loadavg)), $(free -g | awk '/Mem:/ { print $2 }') GiB, disk $(df --output=source "$work" | tail -1)"
report="Out of core: $rows × $cols float64 ($((bytes / 1048576)) MiB), --memory-limit $memory_limit, Lloyd, $iterations steps (--tol 0), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}
Machine: $machine

$table"
echo "$report"
[ -z "$out" ] || echo "$report" > "$out"
