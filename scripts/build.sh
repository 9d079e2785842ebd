#!/usr/bin/env bash
# Configures and builds everything into build/ (or $KMS_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${KMS_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${KMS_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "$@"
