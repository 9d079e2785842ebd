#!/usr/bin/env bash
# Run record (2026-11-27, fourth session): Hamerly at large k and d <= 4 searches the
# points its bounds leave inside the bounds kernel's own block (hamerly_local_kernel),
# instead of listing them for the tiled search kernel. Checks: the CUDA suites;
# compute-sanitizer on the new kernel (cuda-shared and cuda-global, via the solver's
# automatic variant and --backend cuda-global); every iteration record (times left out)
# and centroid file of base and new, f32 and f64.
# Then steps 21-60 of 60, base and new alternating three times (median of each run).
# Usage: run.sh checks|times   (from the repository root; docs/lab/device-scripts/device_compare.sh does the work)
set -u
case ${1:-} in
  checks) exec docs/lab/device-scripts/device_compare.sh checks "hamerly 100" "hamerly 1000" "exponion 300" -- hamerly exponion ;;
  times) exec docs/lab/device-scripts/device_compare.sh times "10000000 2 100 hamerly" "10000000 2 100 lloyd" \
    "1000000 2 100 hamerly" "1000000 2 1000 hamerly" "1000000 4 100 hamerly" "1000000 4 1000 hamerly" \
    "1000000 2 1000 exponion" ;;
  *) echo "usage: run.sh checks|times" >&2; exit 2 ;;
esac
