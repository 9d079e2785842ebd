#!/usr/bin/env bash
# Session 11, helper B (issue 37, k = 100): the GEMM filter's resident-centroid summary pass
# (k ≤ 128) against main, where the step goes, and the peers beside ours. The pack
# ($KMS_DEVICE_CARRY, device_pack.sh BUILD BASE_CLI) holds this build and main's kmeans-cli as
# bin/kmeans-cli-base.
#   checks (shares the machine, ~120 s, a few cores): device_highd.sh checks (the filter's tests
#     with the new many-tiles-a-block cases, the lockstep suites, compute-sanitizer memcheck and
#     racecheck of the filter kernel, small cases).
#   ab (GPU alone, KMS_B_AB_TOTAL s, default 80): ms per step (assignment / step, medians of
#     steps 3-8), base and new in turn, at k = 100, d = 64, 128, 256 (blobs, uniform), d = 16
#     uniform, and uniform × 128, k = 1000 (unchanged path: a control), rows started within
#     KMS_B_AB_BUDGET s (40); then, with the time left, ncu per-kernel times at uniform
#     10^6 × 128, k = 100, new and base, with the filter kernel's occupancy, throughput, stalls.
#   peers100 (GPU alone, ~130 s): the highd suite's k = 100 rows (d = 64, 128, 256, blobs and
#     uniform): our Lloyd (this build; tf32 filter: total / assignment / update) and auto against
#     PyTorch (eager and compiled FP32, compiled TF32) and flash-kmeans (.devcarry-flash), with
#     wrong-label counts.
#   peers1000 (GPU alone, ~150 s): the same at k = 1000 (d = 64, 128, 256) and blobs 4·10^6 × 128,
#     k = 1024.
# Usage: KMS_DEVICE_CARRY=.devcarry-hb OUT=DIR docs/lab/device-scripts/device_session11_B1.sh PART
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-./device-out}
start=$SECONDS
# The suite's data (1-4 GB a file) in memory where there is room.
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
case "${1:-}" in
  checks)
    KMS_CHECKS_LIMIT=${KMS_CHECKS_LIMIT:-120} OUT="$out/checks" "$here/device_highd.sh" checks
    grep -h -E "^FAIL|Loc:|returned FALSE" "$out"/checks/*.log | head -20 ;;
  ab)  # ms per step first (the call may be cut short), then ncu with the time left
    KMS_AB_BUDGET=${KMS_B_AB_BUDGET:-40} KMS_AB_ROWS="uniform:1000000:128:100:base,new blobs:1000000:128:100:base,new
      uniform:1000000:256:100:base,new uniform:1000000:64:100:base,new blobs:1000000:256:100:base,new
      blobs:1000000:64:100:base,new uniform:1000000:16:100:base,new uniform:1000000:128:1000:base,new" \
      OUT="$out/ab" timeout 60 "$here/device_highd.sh" ab
    echo "== ab took $((SECONDS - start)) s"
    left=$(( ${KMS_B_AB_TOTAL:-80} - (SECONDS - start) ))
    [ "$left" -gt 15 ] && KMS_PROFILE_SHAPES="uniform:1000000:128:100" KMS_PROFILE_WHICH="new base" KMS_PROFILE_STALLS=1 \
      OUT="$out/profile" timeout "$left" "$here/device_highd.sh" profile ;;
  peers100) highd k100 100 "" ;;
  peers1000) highd k1000 1000 "blobs:4000000:128:1024" ;;
  *) echo "device_session11_B1.sh: checks, ab, peers100 or peers1000" >&2; exit 2 ;;
esac
echo "== took $((SECONDS - start)) s"
