#!/usr/bin/env bash
# On the CUDA machine, from a carry folder made by docs/lab/device-scripts/device_pack_cuda_weights.sh
# (CARRY, default .devcarry-cuda): the GPU test suites, the Python module built
# there (carried headers, static engine libraries and binding source) with its
# CUDA tests (PyTorch and CuPy arrays), and the weighted vs unweighted timing.
# Usage: CARRY=.devcarry-cuda docs/lab/device-scripts/device_cuda_weights.sh [tests] [python] [bench]
set -uo pipefail
carry=${CARRY:-.devcarry-cuda}
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests python bench)
work=$(mktemp -d)
tar -C "$work" -xJf "$carry/pack.tar.xz"
export LD_LIBRARY_PATH="$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PATH="/usr/local/cuda/bin:$PATH"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      for t in test_cuda_weights test_cuda_init test_cuda_solvers; do
        start=$(date +%s)
        timeout 240 "$work/bin/$t" > "$out/$t.log" 2>&1; rc=$?
        echo "$t: exit $rc, $(( $(date +%s) - start )) s; $(grep Totals "$out/$t.log")"
        grep -E "^FAIL|Loc:" "$out/$t.log" | head -6
      done ;;
    python)
      py=$(command -v python3)
      pkg="$work/py/kmeans_studio"
      mkdir -p "$pkg"
      cp "$carry"/python/kmeans_studio/*.py "$pkg/"
      start=$(date +%s)
      g++ -O2 -shared -fPIC -std=c++20 -fopenmp -DNDEBUG -DKMS_PYTHON_WITH_GPU=1 -DKMS_HAVE_DLPACK=1 \
        $("$py" -m pybind11 --includes) -I"$carry/include" "$carry/python/src/module.cpp" \
        "$carry/lib/libkms_gpu.a" "$carry/lib/libkms_core.a" -L/usr/local/cuda/lib64 -lcudart \
        -o "$pkg/_engine$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')" \
        > "$out/python-build.log" 2>&1 || { echo "module build failed"; tail -20 "$out/python-build.log"; }
      echo "module built in $(( $(date +%s) - start )) s"
      PYTHONPATH="$work/py" PYTHONUNBUFFERED=1 OMP_NUM_THREADS=8 timeout 300 "$py" -m pytest -q -p no:cacheprovider \
        "$carry/python/tests/test_cuda.py" 2>&1 | tee "$out/pytest-cuda.log" | tail -25 ;;
    bench)
      PYTHONPATH="$work/py" PYTHONUNBUFFERED=1 timeout 200 python3 "$carry/bench/weighted_vs_unweighted.py" \
        10000000 2 100 12 2>&1 | tee "$out/bench-weights.log" ;;
  esac
done
