#!/usr/bin/env bash
# Session 11, device call 1: helpers B, C, F round 1. Phase 1: checks in lanes; phase 2: timings, GPU alone.
set -uo pipefail
cd "$(dirname "$0")/.."
cp .devcarry-f/device_rounds_chain.sh docs/lab/device-scripts/ && chmod +x docs/lab/device-scripts/device_rounds_chain.sh
S=docs/lab/device-scripts; t0=$SECONDS
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
KMS_LANE_TIMEOUT=120 OUT=$OUT/lanes $S/device_lanes.sh \
  "B@0-4|.devcarry-hb|$S/device_session11_B1.sh checks" \
  "C@5-10|.devcarry-c|$S/device_cpu_order.sh check" \
  "F@11-15|.devcarry-f|$S/device_rounds_chain.sh check" > $OUT/phase1.txt 2>&1
echo "== phase 1 done at $((SECONDS - t0)) s"
KMS_DEVICE_CARRY=.devcarry-hb OUT=$OUT/B timeout 100 $S/device_session11_B1.sh ab > $OUT/B-ab.txt 2>&1
echo "== B ab done at $((SECONDS - t0)) s (exit $?)"
KMS_MAP_BUDGET=35 KMS_T2_BUDGET=25 OUT=$OUT/C-map KMS_DEVICE_CARRY=.devcarry-c timeout 90 $S/device_cpu_order.sh map task2 > $OUT/C-map.txt 2>&1
echo "== C map done at $((SECONDS - t0)) s"
KMS_CHAIN_BUDGET=65 KMS_DEVICE_CARRY=.devcarry-f OUT=$OUT/f-time timeout 100 $S/device_rounds_chain.sh time > $OUT/F-time.txt 2>&1
echo "== F time done at $((SECONDS - t0)) s"
for f in $OUT/lanes/*.txt; do echo "---- $f"; tail -c 1500 "$f"; done
