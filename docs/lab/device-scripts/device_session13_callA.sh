#!/usr/bin/env bash
# Session 13, call A: helper B's round 1 (checks, ab, ncu; ~230 s), then helper C's checks and map
# (next_call1.sh, ~300 s). Carry: .devcarry-c12 .devcarry-b13
cd "$(dirname "$0")/../../.."
t0=$SECONDS
mkdir -p $OUT/B
KMS_DEVICE_CARRY=.devcarry-b13 OUT=$OUT/B timeout 250 bash .devcarry-b13/run.sh > $OUT/B.txt 2>&1
echo "== B exit $? at $((SECONDS - t0)) s"
bash docs/lab/device-scripts/device_session13_C.sh > $OUT/C-all.txt 2>&1
echo "== C done at $((SECONDS - t0)) s"
echo "######## B"; tail -c 6500 $OUT/B.txt
echo "######## C"; tail -c 4800 $OUT/C-all.txt
