#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."

S=docs/lab/device-scripts; t0=$SECONDS
mkdir -p $OUT/lanes $OUT/verify $OUT/ooc $OUT/streamed
KMS_LANE_TIMEOUT=100 OUT=$OUT/lanes $S/device_lanes.sh \
  "B@0-15|.devcarry-hb|$S/device_session11_B1.sh checks" > $OUT/phase1.txt 2>&1
echo "== phase 1 done at $((SECONDS - t0)) s"; for f in $OUT/lanes/*.txt; do echo "---- $f"; tail -c 1200 "$f"; done
KMS_VERIFY_LIMIT=95 OUT=$OUT/verify KMS_DEVICE_CARRY=.devcarry-gpu timeout 120 $S/device_session10_verify.sh > $OUT/verify.txt 2>&1
echo "== verify done at $((SECONDS - t0)) s"; cut -c1-200 $OUT/verify.txt | tail -30
KMS_DEVICE_CARRY=.devcarry-ooc2 KMS_OOC_RUNS="64 new,64 loaded,2 new,64 new" KMS_OOC_BUDGET=80 OUT=$OUT/ooc timeout 110 $S/device_ooc_bench.sh > $OUT/ooc.txt 2>&1
echo "== ooc done at $((SECONDS - t0)) s"; tail -6 $OUT/ooc.txt; cat $OUT/ooc/summary.md 2>/dev/null
left=$((530 - (SECONDS - t0)))
KMS_STREAM_BUDGET=$((left - 60)) KMS_STREAM_ITER_1000=12 OUT=$OUT/streamed KMS_DEVICE_CARRY=.devcarry-gpu timeout $left $S/device_session10_streamed.sh > $OUT/streamed.txt 2>&1
echo "== streamed done at $((SECONDS - t0)) s"; tail -12 $OUT/streamed.txt
