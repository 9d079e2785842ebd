#!/usr/bin/env bash
# Pack what docs/lab/device-scripts/device_cuda_weights.sh needs into DEST (a folder of the
# device's checkout that git ignores, e.g. /work/main/.devcarry-cuda): the GPU test
# binaries (docs/lab/device-scripts/device_pack.sh), the static engine libraries, the headers and
# sources of the Python binding, the Python tests and the timing script.
# Usage: docs/lab/device-scripts/device_pack_cuda_weights.sh BUILD_DIR DEST
set -euo pipefail
build=$(cd "${1:?build directory}" && pwd)
dest=${2:?destination folder}
root=$(cd "$(dirname "$0")/../../.." && pwd)
rm -rf "$dest"
mkdir -p "$dest/include/dlpack" "$dest/lib" "$dest/python/src" "$dest/bench"
KMS_DEVICE_CARRY=$(realpath --relative-to="$root" "$dest") "$root/docs/lab/device-scripts/device_pack.sh" "$build"
cp -r "$root/core/include/kms" "$dest/include/" && cp "$root"/gpu/include/kms/* "$dest/include/kms/"
cp /usr/include/dlpack/dlpack.h "$dest/include/dlpack/"
cp "$build/core/libkms_core.a" "$build/gpu/libkms_gpu.a" "$dest/lib/"
cp -r "$root/python/kmeans_studio" "$root/python/tests" "$dest/python/"
cp "$root/python/src/module.cpp" "$dest/python/src/"
cp "$root/bench/gpu/weighted_vs_unweighted.py" "$dest/bench/"
cp "$root/docs/lab/device-scripts/device_cuda_weights.sh" "$dest/"
du -sh "$dest"
