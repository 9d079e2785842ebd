#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages kmeans-studio needs, only those missing.
# The CUDA toolkit is optional and never installed here: where nvcc exists the
# CUDA back end is built, otherwise it is reported unavailable.
set -euo pipefail

packages=(
  g++ cmake ninja-build                     # build
  qt6-base-dev libqt6opengl6-dev libgl-dev  # studio (Qt6 Widgets + OpenGL) and Qt Test
  python3 python3-numpy python3-sklearn     # the scikit-learn oracle in the tests and benchmarks
  xvfb xauth                                # rendering tests and the studio on a machine without a display
)

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
