#!/usr/bin/env bash
# Run record (2026-11-27): Hamerly's test as one kernel of two points a thread
# (bounds_test_kernel) for Hamerly at large k, Yinyang and Exponion. Checks: the CUDA
# suites; compute-sanitizer on the three solvers' bounds path; every iteration record
# (times left out) and centroid file of base and new, f32 and f64.
# Then steps 21-60 of 60, base and new alternating three times (median of each run).
# Usage: run.sh checks|times   (from the repository root; docs/lab/device-scripts/device_compare.sh does the work)
set -u
case ${1:-} in
  checks) exec docs/lab/device-scripts/device_compare.sh checks "hamerly 1000" "hamerly 100" "exponion 300" "yinyang 300" \
    -- hamerly exponion yinyang ;;
  times) exec docs/lab/device-scripts/device_compare.sh times "10000000 2 100 hamerly" "10000000 2 100 exponion" \
    "10000000 2 100 yinyang" "10000000 2 100 lloyd" "1000000 2 100 hamerly" "1000000 2 1000 exponion" \
    "1000000 2 1000 hamerly" "1000000 16 1000 exponion" "1000000 64 100 yinyang" ;;
  *) echo "usage: run.sh checks|times" >&2; exit 2 ;;
esac
