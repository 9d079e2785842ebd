#!/usr/bin/env bash
# Configures and builds everything into build/ (or $KMS_BUILD_DIR).
# Extra CMake arguments: KMS_CMAKE_ARGS="-DKMS_WITH_CUDA=OFF ...".
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${KMS_BUILD_DIR:-build}
cuda_args=()
# Without an NVIDIA GPU the CUDA code is only compiled, to check that it builds: machine
# code for the newest architecture (sm_90: what the H100 runs, so ptxas checks registers
# and resources there) and, for the sources with code guarded by the architecture's
# version, PTX for the oldest (compute_75: the paths sm_90 leaves out must still
# compile; gpu/CMakeLists.txt, KMS_CUDA_CHECK_PTX). Skipping ptxas for sm_75 took
# lloyd.cu from 141 s to 77 s (one core of the 2-core CI machine).
# ptxas runs at -O0 there: it still assembles every kernel for sm_90 and checks its
# inline PTX and its resources (static shared memory, ...), but that machine code is never
# run, so optimising it is wasted: lloyd.cu 34.9 -> 24.2 CPU-s, update.cu 14.6 -> 12.2
# (package_update.cu, cuda_solver_base.cu level; the rest is cicc and the host compiler).
# nvcc's -Ofast-compile is no substitute: it keeps shared arrays that -O3 removes, and
# ptxas then refuses lloyd.cu's kernels (more than 48 KiB of static shared memory).
if ! nvidia-smi -L >/dev/null 2>&1 && [[ "${KMS_CMAKE_ARGS:-}" != *CMAKE_CUDA_ARCHITECTURES* ]]; then
  cuda_args+=("-DCMAKE_CUDA_ARCHITECTURES=90-real" -DKMS_CUDA_CHECK_PTX=75 "-DCMAKE_CUDA_FLAGS=-Xptxas=-O0")
fi
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" ${KMS_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "$@"
