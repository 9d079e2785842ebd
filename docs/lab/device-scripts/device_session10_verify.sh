#!/usr/bin/env bash
# Session 10, last check: main as landed (helper B's first-pass lists and helper C's rows path
# together, each run on the device before only in its own branch's build), the GPU suites'
# small cases at once, each cut at KMS_VERIFY_LIMIT seconds (110); summaries to stdout.
# Usage: OUT=DIR docs/lab/device-scripts/device_session10_verify.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
record_device
limit=${KMS_VERIFY_LIMIT:-110}
run_suite() {  # NAME CORES SUITE FUNCTIONS...
  local name=$1 cores=$2 suite=$3; shift 3
  KMS_GPU_TEST_SMALL=1 timeout "$limit" taskset -c "$cores" "$work/bin/$suite" "$@" > "$out/$name.log" 2>&1
  echo "$suite $* (small): exit $?"; grep -E "^FAIL|Loc:|QINFO.*(bitwise|runs)|Totals" "$out/$name.log" | cut -c1-260 | head -12
}
run_suite filter 0-3 test_cuda_solvers gemmFilterPath doubleMatchesCpuLloyd floatMatchesLloydAndCpu > "$out/filter.txt" &
run_suite package 4-7 test_cuda_devices packageUpdateGivesTheCpusBitsAtEveryShape splitsGiveOneDevicesBits > "$out/package.txt" &
run_suite streamed 8-11 test_cuda_devices streamedChunksGiveOneDevicesBits outOfCoreGivesTheLoadedBits refusals > "$out/streamed.txt" &
run_suite weights 12-15 test_cuda_weights > "$out/weights.txt" &
wait
cat "$out"/filter.txt "$out"/package.txt "$out"/streamed.txt "$out"/weights.txt
