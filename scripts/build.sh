#!/usr/bin/env bash
# Configures and builds everything into build/ (or $KMS_BUILD_DIR).
# Extra CMake arguments: KMS_CMAKE_ARGS="-DKMS_WITH_CUDA=OFF ...".
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${KMS_BUILD_DIR:-build}
cuda_args=()
# Without an NVIDIA GPU the CUDA code is only compiled, to check that it builds:
# PTX for the oldest architecture (compute_75: code guarded for sm_80+ features must
# still compile) and machine code for the newest (sm_90: what the H100 runs, so ptxas
# checks registers and resources there). Skipping ptxas for sm_75 takes lloyd.cu
# from 141 s to 77 s (one core of the 2-core CI machine).
if ! nvidia-smi -L >/dev/null 2>&1 && [[ "${KMS_CMAKE_ARGS:-}" != *CMAKE_CUDA_ARCHITECTURES* ]]; then
  cuda_args+=("-DCMAKE_CUDA_ARCHITECTURES=75-virtual;90-real")
fi
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" ${KMS_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "$@"
