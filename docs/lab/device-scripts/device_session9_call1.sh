#!/usr/bin/env bash
# The ninth session's first device call, on a 4-GPU machine (issue 42): two lanes at once, each
# pinned to its own cores. ranks: --devices under 2 MPI ranks on 4 GPUs (cli_ranks_cuda.sh), then the
# 4-GPU scaling with 2 ranks x 2 GPUs (device_ranks_devices.sh), its files in /dev/shm so that the
# disk stays the other lane's. ooc: bench/out_of_core.sh with 64 MiB blocks on 16 cores against the
# disk's rate in the same run. Summaries straight into $OUT. Usage: OUT=DIR device_session9_call1.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
final=${OUT:?}
cores=$(nproc)
start=$SECONDS
(
  source "$here/device_common.sh"
  taskset -c 0-15 "$root/bench/out_of_core.sh" --cli "$cli" --size-gib 8 --k "2 64" --threads 16 \
    --iterations 4 --memory-limit 2G --dir /var/tmp --out "$final/ooc-table.md"
  echo "out_of_core.sh exit $? after $((SECONDS - start)) s"
) > "$final/ooc.txt" 2>&1 &
(
  mkdir -p /dev/shm/kms && export TMPDIR=/dev/shm/kms
  OUT="$final/ranks" taskset -c 16-$((cores > 48 ? 47 : cores - 1)) "$here/device_ranks_devices.sh"
  echo "device_ranks_devices.sh exit $? after $((SECONDS - start)) s"
) > "$final/ranks.txt" 2>&1 &
wait
echo "both lanes done in $((SECONDS - start)) s on $cores cores ($(lscpu | sed -n 's/^Model name: *//p'))"
for f in "$final"/*.txt; do echo "=== ${f#$final/}"; tail -n 40 "$f"; done
