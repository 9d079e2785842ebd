#!/usr/bin/env bash
# The ninth session's last device call (one H200, 16 cores): part 1, the checks of every lane at
# once on the one GPU, each on its own cores (device_lanes.sh, 200 s at most a lane): issue 37's
# candidate lists (B), issue 42's package update by default (C), the streamed bounded solvers and
# out of core on the device (stream, regress), issue 41's seeding on the CPU (A, 1/4/6 threads on
# six cores). Part 2, the timings, one after another with the GPU to themselves (88 s each), with
# issue 42's out-of-core reader A/B (D: disk and CPU) beside them on cores 8-15.
# Usage: OUT=DIR docs/lab/device-scripts/device_session9_final.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
final=${OUT:?}
start=$SECONDS
OUT="$final" KMS_LANE_TIMEOUT=200 "$here/device_lanes.sh" \
  'B@0-2|.devcarry-highd|docs/lab/device-scripts/device_highd.sh checks' \
  'C@3-5|.devcarry-pkg|OUT=$OUT/part1 docs/lab/device-scripts/device_package_default.sh check' \
  'stream@6-7|.devcarry-gpu|docs/lab/device-scripts/device_streamed_bounded.sh tests memcheck' \
  'regress@8-9|.devcarry-gpu|docs/lab/device-scripts/device_streamed_bounded.sh regress' \
  "A@10-15|.devcarry-seed|KMS_THREADS='1 4 6' docs/lab/device-scripts/device_seeding_tree.sh" > "$final/part1.txt" 2>&1
echo "part 1 done at $((SECONDS - start)) s"
root=$(cd "$here/../../.." && pwd)
cd "$root"
# The out-of-core reader's A/B (disk and CPU, not the GPU) beside the GPU timings, on the other cores.
if [ -f .devcarry-ooc/pack.tar.xz ]; then
  (OUT="$final/D" KMS_DEVICE_CARRY=.devcarry-ooc timeout 240 taskset -c 8-15 "$here/device_ooc_bench.sh") > "$final/D.txt" 2>&1 &
fi
[ -f .devcarry-highd/pack.tar.xz ] && (OUT="$final/B2" KMS_DEVICE_CARRY=.devcarry-highd timeout 88 "$here/device_highd.sh" ab) > "$final/B2.txt" 2>&1
echo "B ab done at $((SECONDS - start)) s"
[ -f .devcarry-pkg/pack.tar.xz ] && (KMS_PKG_BUDGET=68 KMS_PKG_STEPS=8 OUT="$final/C2" timeout 88 "$here/device_package_default.sh" table) > "$final/C2.txt" 2>&1
echo "C table done at $((SECONDS - start)) s"
(OUT="$final/S2" KMS_STREAM_N=100000000 KMS_STREAM_SOLVERS='lloyd hamerly' timeout 88 "$here/device_streamed_bounded.sh" bench) > "$final/S2.txt" 2>&1
echo "streamed bench done at $((SECONDS - start)) s"
wait
echo "all done at $((SECONDS - start)) s"
for f in "$final"/*.txt; do echo "=== ${f#$final/}"; tail -n 25 "$f"; done
