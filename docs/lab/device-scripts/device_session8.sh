#!/usr/bin/env bash
# The eighth session's device call: independent lanes at once on a many-core GPU machine, each
# pinned to its own cores so that the CPU lanes measure 16 cores each (nproc inside a lane is its
# core count): gpu (the seeding order's test, then --devices under MPI ranks and their scaling),
# solvers (issue 41's CPU grid), highd (issue 37's CPU grid). A lane whose pack is absent is
# skipped. Every lane's files are tarred into $OUT/lanes.tar.gz; the lanes' summaries are printed.
# Usage: OUT=DIR docs/lab/device-scripts/device_session8.sh   (KMS_LANES: which, default all three)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
final=${OUT:?}
lanes=$(mktemp -d)
cores=$(nproc)
lane() {  # NAME CORES CARRY:SCRIPT...   (run one after another)
  local name=$1 set=$2; shift 2
  mkdir -p "$lanes/$name"
  (
    for job in "$@"; do
      carry=${job%%:*} script=${job#*:}
      if [ ! -f "$root/$carry/pack.tar.xz" ]; then echo "lane $name: no $carry/pack.tar.xz, $script skipped"; continue; fi
      OUT="$lanes/$name" KMS_DEVICE_CARRY=$carry taskset -c "$set" "$here/$script"
      echo "lane $name: $script exit $?"
    done > "$lanes/$name/summary.txt" 2>&1
  ) &
}
wanted=" ${KMS_LANES:-gpu solvers highd} "
if [ "$cores" -ge 48 ]; then gpu_cores=32-$((cores - 1)); solvers_cores=0-15; highd_cores=16-31
else gpu_cores=0-$((cores - 1)); solvers_cores=0-$((cores - 1)); highd_cores=0-$((cores - 1)); fi
start=$SECONDS
[[ $wanted == *" gpu "* ]] && lane gpu "$gpu_cores" .devcarry-seed:device_seeding_order.sh .devcarry-seed:device_seeding_threads.sh .devcarry-seed:device_seeding_gpu_table.sh .devcarry-gpu:device_ranks_devices.sh
[[ $wanted == *" solvers "* ]] && lane solvers "$solvers_cores" .devcarry-solvers:device_solvers_grid.sh
[[ $wanted == *" highd "* ]] && lane highd "$highd_cores" .devcarry-highd:device_cpu_highd.sh
wait
echo "all lanes done in $((SECONDS - start)) s on $cores cores ($(lscpu | sed -n 's/^Model name: *//p'))"
for f in "$lanes"/*/summary.txt; do echo "=== ${f#$lanes/}"; tail -n 45 "$f"; done
tar -C "$lanes" -czf "$final/lanes.tar.gz" .
