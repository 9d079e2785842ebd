#!/usr/bin/env bash
# On the CUDA machine (issue 40): the Python package as a user with a GPU gets it. pip builds
# the wheel from this tree through the in-tree backend (nvcc there, so the CUDA back end is in
# it), installs it into a fresh venv, and the CUDA tests of the Python suite run against it.
# The device's Python is the PyTorch venv's (3.12, with NumPy, pybind11, pytest where present);
# nothing comes from an index.
# Usage: OUT=DIR docs/lab/device-scripts/device_python.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-$root/device-out}
mkdir -p "$out"
py=${KMS_DEVICE_PYTHON:-/opt/torch/.venv/bin/python}
export PATH="/usr/local/cuda/bin:$(dirname "$py"):$PATH"
scratch=$(mktemp -d)
"$py" -m venv "$scratch/venv"
venv_py=$scratch/venv/bin/python
# NumPy, PyTorch and pytest come from the PyTorch venv (a venv's --system-site-packages
# would be /usr's): a .pth line puts its site-packages after the fresh venv's own.
"$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' \
  > "$("$venv_py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/device-venv.pth"
export KMS_PYTHON_BUILD_DIR=$scratch/build
# dlpack.h (CUDA tensors handed over by DLPack): Debian's, carried in .devcarry-python/include.
export KMS_CMAKE_ARGS="-Dpybind11_DIR=$("$py" -m pybind11 --cmakedir) -DCMAKE_CUDA_ARCHITECTURES=90-real
  -DKMS_DLPACK_INCLUDE_DIR=$root/.devcarry-python/include"
start=$SECONDS
"$venv_py" -m pip install --no-build-isolation --no-deps --no-index "$root" > "$out/pip-install.log" 2>&1
echo "pip install: exit $? in $((SECONDS - start)) s; $(grep -E '^Successfully' "$out/pip-install.log")"
cd "$scratch"  # not the source tree: the installed package is what imports
"$venv_py" - <<'EOF'
import kmeans_studio, numpy as np
print("kmeans_studio", kmeans_studio.__version__, "from", kmeans_studio.__file__)
print("backends:", kmeans_studio.backends())
rng = np.random.default_rng(3)
X = rng.normal(size=(200000, 16)) + rng.integers(0, 20, 200000)[:, None]
cpu = kmeans_studio.KMeans(20, backend="omp", random_state=1, tol=0).fit(X)
gpu = kmeans_studio.KMeans(20, backend="cuda", random_state=1, tol=0).fit(X)
print(f"CUDA wheel, 2e5 x 16, k = 20, f64: solver {gpu.solver_}, labels equal {np.array_equal(cpu.labels_, gpu.labels_)}, "
      f"n_iter {gpu.n_iter_} = {cpu.n_iter_}, max |centroid difference| {np.abs(cpu.cluster_centers_ - gpu.cluster_centers_).max():.3g}")
EOF
# No pytest in the PyTorch venv: Debian's (pure Python), carried in .devcarry-python/site.
"$venv_py" -c "import pytest" 2>/dev/null || export PYTHONPATH="$root/.devcarry-python/site"
if "$venv_py" -c "import pytest" 2>/dev/null; then
  "$venv_py" -m pytest -q -p no:cacheprovider --tb=short -rf "$root/python/tests/${KMS_PYTHON_TESTS:-test_cuda.py}" \
    > "$out/pytest.log" 2>&1
  grep -E "^E |^FAILED|passed|failed" "$out/pytest.log" | cut -c1-300 | tail -40
else
  echo "no pytest in $py: the CUDA test file was not run"
fi
