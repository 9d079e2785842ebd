#!/usr/bin/env bash
# From a fresh machine: install what is missing, build, run every test.
# GPU tests skip (with the reason) where there is no CUDA device.
# Besides the CTest suites this runs the sanitizer builds (ASan+UBSan on every CPU
# suite, TSan on the OpenMP ones: scripts/sanitize.sh) and the libFuzzer targets
# (scripts/fuzz.sh, $KMS_FUZZ_SECONDS each, default 30 here; scripts/fuzz.sh run alone
# defaults to 60). KMS_TEST_QUICK=1 skips those two.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${KMS_TEST_QUICK:-}
# Each phase's wall time and the run's so far: CI must stay under 30 minutes on
# 2 cores, and these lines show where it goes.
timed() {  # NAME COMMAND...
  local name=$1 phase_start=$SECONDS
  shift
  "$@"
  echo "test.sh: $name took $((SECONDS - phase_start)) s (run so far $SECONDS s)"
}
if [ -n "$quick" ]; then timed install ./scripts/install-deps.sh; else timed install ./scripts/install-deps.sh --fuzz --sanitizers; fi
timed build ./scripts/build.sh
if [ -z "$quick" ]; then
  timed sanitizers ./scripts/sanitize.sh all
  timed fuzz ./scripts/fuzz.sh "${KMS_FUZZ_SECONDS:-30}"
fi
build_dir=${KMS_BUILD_DIR:-build}
cd "$build_dir"
timed ctest ctest --output-on-failure -j "$(nproc)" --timeout 900
