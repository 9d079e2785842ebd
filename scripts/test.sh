#!/usr/bin/env bash
# From a fresh machine: install what is missing, build, run every test.
# GPU tests skip (with the reason) where there is no CUDA device.
# Besides the CTest suites this runs the sanitizer builds (ASan+UBSan on every CPU
# suite, TSan on the OpenMP ones: scripts/sanitize.sh) and the libFuzzer targets
# (scripts/fuzz.sh, $KMS_FUZZ_SECONDS each, default 30: the committed corpus carries what
# longer runs found). KMS_TEST_QUICK=1 skips those two.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${KMS_TEST_QUICK:-}
if [ -n "$quick" ]; then ./scripts/install-deps.sh; else ./scripts/install-deps.sh --fuzz --sanitizers; fi
./scripts/build.sh
if [ -z "$quick" ]; then
  ./scripts/sanitize.sh all
  ./scripts/fuzz.sh "${KMS_FUZZ_SECONDS:-30}"
fi
build_dir=${KMS_BUILD_DIR:-build}
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)" --timeout 900
