#!/usr/bin/env bash
# On the CUDA machine (issue 41): compute-sanitizer memcheck and racecheck over the GPU seeding's
# kernels as they are now (plain and bounded at 6000 × 3; memcheck also auto dropping its bounds, 3000 × 64),
# exit status and error summary of each. Usage: OUT=DIR KMS_DEVICE_CARRY=... device_seeding_sanitize.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
for tool in memcheck racecheck; do
  runs=("blobs:n=6000,d=3,k=20 300 off" "blobs:n=6000,d=3,k=20 300 on")
  [ $tool = memcheck ] && runs+=("uniform:n=3000,d=64 520 auto")  # (racecheck over 520 rounds: minutes)
  for run in "${runs[@]}"; do
    read -r spec k bounds <<<"$run"
    log="$out/sanitizer-$tool-${spec%%:*}-$bounds.log"
    compute-sanitizer --tool $tool --error-exitcode 9 "$cli" run --generate "$spec" --k "$k" --backend cuda \
      --init-bounds "$bounds" --max-iter 1 --seed 2 > "$log" 2>&1
    echo "compute-sanitizer $tool, GPU seeding $spec k = $k bounds $bounds: exit $? $(grep -h -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' "$log")"
  done
done
