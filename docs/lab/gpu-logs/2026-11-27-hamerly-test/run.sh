#!/usr/bin/env bash
# Run record (2026-11-27, fourth session): Hamerly's test as one device function
# (hamerly_test, gpu/src/kernels/bounded_assign.hpp) shared by hamerly_kernel (k <= 32)
# and bounds_test_kernel (Hamerly at large k, Yinyang, Exponion), replacing two copies.
# Behaviour unchanged: every record (times left out) and centroid file must equal the
# base's (a51afd6). Usage: run.sh checks|times   (from the repository root)
set -u
case ${1:-} in
  checks) exec docs/lab/device-scripts/device_compare.sh checks "hamerly 20" "hamerly 100" "yinyang 300" "exponion 300" \
    -- hamerly exponion yinyang ;;
  times) exec docs/lab/device-scripts/device_compare.sh times "10000000 2 100 hamerly" "1000000 2 20 hamerly" \
    "1000000 16 1000 hamerly" "10000000 2 100 exponion" "10000000 2 100 yinyang" ;;
  *) echo "usage: run.sh checks|times" >&2; exit 2 ;;
esac
