#!/usr/bin/env bash
# Session 11, helper B, round 1 (issue 37): where the k = 100 step goes, and the peers beside ours.
# GPU alone (timings). Uses the pack in $KMS_DEVICE_CARRY (device_pack.sh of an sm_90 build).
#   part1 (~150 s): ncu kernel durations of steps 4-8 at 10^6 × 128 and × 256, k = 100 (uniform,
#     blobs), with the filter kernel's occupancy, throughput and stall reasons at uniform × 128;
#     then the highd suite's k = 100 rows (d = 64, 128, 256, blobs and uniform): our Lloyd (tf32
#     filter: assignment / update split) and auto against PyTorch (eager and compiled FP32,
#     compiled TF32) and flash-kmeans (.devcarry-flash), with wrong-label counts.
#   part2 (~150 s): the same comparison at k = 1000 (d = 64, 128, 256) and blobs 4·10^6 × 128,
#     k = 1024.
# Usage: KMS_DEVICE_CARRY=.devcarry-hb OUT=DIR docs/lab/device-scripts/device_session11_B1.sh part1|part2
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-./device-out}
start=$SECONDS
# The suite's data (2-4 GB a file) in memory where there is room.
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
highd() {  # NAME K EXTRA: the suite's GPU rows at d = 64, 128, 256, ours tf32 filter and auto
  KMS_HIGHD_CONFIGS="tf32 auto" KMS_HIGHD_D="64 128 256" KMS_HIGHD_K="$2" KMS_HIGHD_EXTRA="$3" \
    OUT="$out/$1" "$here/device_highd.sh" bench > "$out/$1.log" 2>&1
  echo "== $1: ours (medians of steps 3-12: total / assignment / update ms, certified share)"
  grep -E "^(blobs|uniform) n=" "$out/$1.log" | python3 -c '
import json, sys
for line in sys.stdin:
    name, rest = line.split(": ", 1)
    parts = []
    for chunk in rest.split(" | "):
        config, data = chunk.split(" ", 1)
        r = json.loads(data)
        parts.append("%s %s" % (config, "failed" if r.get("failed") else "%.3f / %.3f / %.3f (%.1f %%)" % (
            r["total"], r["assign"], r["update"], 100 * r["certified"])))
    print("  %s: %s" % (name, "; ".join(parts)))'
  echo "== $1: against the peers (report.md)"
  sed -n '/^ms per Lloyd step/,/^## /p' "$out/$1/highd/report.md" 2>/dev/null | grep -v "^## "
  grep -E "failed|Error|Traceback" "$out/$1.log" | head -5
}
mkdir -p "$out"
case "${1:-part1}" in
  part1)
    KMS_PROFILE_SHAPES="uniform:1000000:128:100" KMS_PROFILE_STALLS=1 OUT="$out/profile" \
      timeout 80 "$here/device_highd.sh" profile
    KMS_PROFILE_SHAPES="blobs:1000000:128:100 uniform:1000000:256:100" OUT="$out/profile2" \
      timeout 60 "$here/device_highd.sh" profile
    echo "== profile took $((SECONDS - start)) s"
    highd k100 100 "" ;;
  part2)
    highd k1000 1000 "blobs:4000000:128:1024" ;;
  *) echo "device_session11_B1.sh: part1 or part2" >&2; exit 2 ;;
esac
echo "== took $((SECONDS - start)) s"
