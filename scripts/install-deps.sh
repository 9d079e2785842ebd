#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages kmeans-studio needs, only those missing.
# The CUDA toolkit is optional and never installed here: where nvcc exists the
# CUDA back end is built, otherwise it is reported unavailable.
#   scripts/install-deps.sh [--fuzz] [--sanitizers]
# --fuzz / --sanitizers add clang-14 with libFuzzer, the sanitizer runtimes and
# LLVM's OpenMP runtime with Archer (scripts/fuzz.sh, scripts/sanitize.sh).
set -euo pipefail

packages=(
  g++ cmake ninja-build                     # build
  qt6-base-dev libqt6opengl6-dev libgl-dev  # studio (Qt6 Widgets + OpenGL) and Qt Test
  python3 python3-numpy python3-sklearn     # the scikit-learn oracle in the tests and benchmarks
  python3-matplotlib                        # the benchmark suites' plots (scripts/bench.sh)
  python3-faiss                             # FAISS's k-means beside ours (bench/cpu_vs_sklearn.py --grid)
  pybind11-dev python3-pytest libdlpack-dev # the Python module (python/) and its tests
  python3-hypothesis                        # the estimator's property test (python/tests/test_properties.py)
  python3-scipy python3-venv python3-build  # sparse input; the pip package's CI check (pyproject.toml)
  xvfb xauth                                # rendering tests and the studio on a machine without a display
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev  # the studio's MP4 export (H.264: libx264)
  libopenmpi-dev openmpi-bin                # MPI ranks (kms_mpi) and their tests
  liblapacke-dev libopenblas-dev            # spectral clustering's eigensolver (LAPACK dsyevr; docs/spectral.md)
)
for option in "$@"; do
  case "$option" in
    --fuzz|--sanitizers)
      # clang-14, libFuzzer, ASan/UBSan/TSan runtimes, libomp + libarcher (TSan-aware OpenMP)
      packages+=(clang-14 libfuzzer-14-dev libclang-rt-14-dev libomp-14-dev) ;;
    *) echo "install-deps.sh: unknown option $option (--fuzz, --sanitizers)" >&2; exit 2 ;;
  esac
done

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
