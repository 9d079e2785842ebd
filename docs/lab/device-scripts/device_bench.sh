#!/usr/bin/env bash
# One command on any CUDA machine: build the CUDA benchmark from this checkout and
# run it (solvers, floors, host-to-device), then the PyTorch / scikit-learn
# reference (bench/gpu/reference_kmeans.py, needs torch + sklearn in python3).
# Results: ${OUT:-./bench-out}/bench.log, bench.json, reference.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-$root/bench-out}
build=${BUILD:-$root/build-bench-gpu}
mkdir -p "$out"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKMS_BUILD_TESTS=OFF -DKMS_WITH_QT=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-native} > "$out/configure.log"
cmake --build "$build" --target bench_cuda_solvers -j"$(nproc)" > "$out/build.log"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/device.txt"
"$build/bench/bench_cuda_solvers" --json "$out/bench.json" "$@" | tee "$out/bench.log"
PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/reference_kmeans.py" 2>&1 | tee "$out/reference.log"
