#!/usr/bin/env bash
# Pack the GPU test/bench binaries built here, with the shared libraries the
# device machine lacks (Qt6 Core/Test and their dependencies), into
# .devcarry-gpu/pack.tar.xz for the device run (docs/lab/device-scripts/device_run.sh unpacks it).
# Usage: docs/lab/device-scripts/device_pack.sh BUILD_DIR [EXTRA_EXECUTABLE ...]   (KMS_DEVICE_CARRY=DIR: pack
# into DIR instead, relative to the root; extra executables go into bin/ under their own names, with their libraries)
set -euo pipefail
build=${1:?build directory}
root=$(cd "$(dirname "$0")/../../.." && pwd)
# scripts/build.sh on a machine without a GPU configures ptxas at -O0 (a compile check only):
# such kernels run 2-5x slower, so a pack of them would time nothing but the missing optimiser.
if grep -q '^CMAKE_CUDA_FLAGS:.*-Xptxas=-O0' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "device_pack.sh: $build/CMakeCache.txt builds CUDA with -Xptxas=-O0 (scripts/build.sh's compile check);" \
       "reconfigure it first: cmake -B $build -DCMAKE_CUDA_FLAGS=" >&2
  exit 1
fi
stage=$(mktemp -d)
carry="$root/${KMS_DEVICE_CARRY:-.devcarry-gpu}"
mkdir -p "$stage/bin" "$stage/lib" "$carry"
for exe in "$build"/tests/test_cuda_solvers "$build"/tests/test_cuda_devices "$build"/tests/test_cuda_weights "$build"/tests/test_cuda_init "$build"/tests/test_gpu_scores \
           "$build"/app/kmeans-cli "$build"/bench/bench_cuda* "$build"/bench/bench_ceiling "$build"/bench/bench_solvers "${@:2}"; do
  [ -x "$exe" ] && cp "$exe" "$stage/bin/"
done
for exe in "$stage"/bin/*; do
  ldd "$exe" | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libgcc_s.so*|libstdc++.so*) ;;  # the device's own are newer
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
done
tar -C "$stage" -cJf "$carry/pack.tar.xz" bin lib
rm -rf "$stage"
ls -la "$carry/pack.tar.xz"
