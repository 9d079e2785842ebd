#!/usr/bin/env bash
# Run record (2026-11-27): the centroid update and its shift statistics in one launch
# (apply_and_stats_kernel). Checks: the CUDA suites; compute-sanitizer on the package path;
# every iteration record (times left out) and centroid file of base and new, f32 and f64.
# Then steps 21-60 of 60, base and new alternating three times (median of each run).
# Usage: run.sh checks|times   (from the repository root; docs/lab/device-scripts/device_compare.sh does the work)
set -u
case ${1:-} in
  checks) exec docs/lab/device-scripts/device_compare.sh checks "lloyd 100" "hamerly 1000" "exponion 300" -- lloyd hamerly exponion ;;
  times) exec docs/lab/device-scripts/device_compare.sh times "1000000 2 100 lloyd" "1000000 2 100 hamerly" "1000000 1 100 lloyd" \
    "1000000 2 1000 exponion" "1000000 16 100 lloyd" "100000 2 10 lloyd" "10000000 2 100 lloyd" ;;
  *) echo "usage: run.sh checks|times" >&2; exit 2 ;;
esac
