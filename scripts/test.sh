#!/usr/bin/env bash
# From a fresh machine: install what is missing, build, run every test.
# GPU tests skip (with the reason) where there is no CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
build_dir=${KMS_BUILD_DIR:-build}
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)" --timeout 900
