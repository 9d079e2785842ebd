#!/usr/bin/env bash
# Configures and builds everything into build/ (or $KMS_BUILD_DIR).
# Extra CMake arguments: KMS_CMAKE_ARGS="-DKMS_WITH_CUDA=OFF ...".
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${KMS_BUILD_DIR:-build}
cuda_args=()
# Without an NVIDIA GPU the CUDA code is only compiled, to check that it builds:
# the oldest and the newest architecture (sm_75: code guarded for sm_80+ features
# must still assemble; sm_90: what the H100 runs) instead of all three.
if ! nvidia-smi -L >/dev/null 2>&1 && [[ "${KMS_CMAKE_ARGS:-}" != *CMAKE_CUDA_ARCHITECTURES* ]]; then
  cuda_args+=("-DCMAKE_CUDA_ARCHITECTURES=75;90")
fi
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" ${KMS_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "$@"
