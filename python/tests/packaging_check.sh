#!/usr/bin/env bash
# The pip package, as CI checks it (CTest python_packaging): the PEP 517 backend
# (pyproject.toml, python/packaging/kms_build_backend.py) packs the module this build
# already made (KMS_PYTHON_PREBUILT, no second CMake build), and
#   1. pip install --no-build-isolation --no-index <repo> into a fresh venv
#      (python3 -m venv --system-site-packages: NumPy from Debian);
#   2. python3 -m build --no-isolation --wheel, the wheel pip-installed into a user site
#      (PYTHONUSERBASE; Debian's pip needs --break-system-packages for --user);
# each then imports kmeans_studio from where it was installed, fits, and checks the
# version (importlib.metadata == kmeans_studio.__version__ == CMake's project VERSION).
# The full build from source (no KMS_PYTHON_PREBUILT) is the same backend with CMake run
# first: `pip install --no-build-isolation .` or `python3 -m build --no-isolation`.
# Usage: packaging_check.sh PYTHON SOURCE_DIR BUILD_DIR
set -euo pipefail
python=$1 source=$(cd "$2" && pwd) build=$(cd "$3" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^project(kmeans_studio VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
check='
import importlib.metadata as m, pathlib, sys
import numpy as np
import kmeans_studio
where, expected = sys.argv[1], sys.argv[2]
assert pathlib.Path(kmeans_studio.__file__).resolve().is_relative_to(pathlib.Path(where).resolve()), kmeans_studio.__file__
assert m.version("kmeans-studio") == kmeans_studio.__version__ == expected, (m.version("kmeans-studio"), expected)
km = kmeans_studio.KMeans(2, random_state=0).fit(np.array([[0.0], [0.1], [5.0], [5.1]]))
assert sorted(km.cluster_centers_.ravel().round(2).tolist()) == [0.05, 5.05]
print("kmeans_studio", m.version("kmeans-studio"), "from", kmeans_studio.__file__)
'
export KMS_PYTHON_PREBUILT=$build PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
unset PYTHONPATH

"$python" -m venv --system-site-packages "$work/venv"
(cd "$work" && "$work/venv/bin/python" -m pip install -q --no-build-isolation --no-index "$source")
(cd "$work" && "$work/venv/bin/python" -c "$check" "$work/venv" "$version")

if "$python" -c "import build" 2>/dev/null; then
  (cd "$source" && "$python" -m build --no-isolation --wheel --outdir "$work/dist" . >/dev/null)
  PYTHONUSERBASE=$work/user "$python" -m pip install -q --user --break-system-packages --no-index --no-deps "$work"/dist/*.whl
  (cd "$work" && PYTHONUSERBASE=$work/user "$python" -c "$check" "$work/user" "$version")
else
  echo "python_packaging: no 'build' module for $python (Debian: python3-build): the wheel step skipped"
fi
