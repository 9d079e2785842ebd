#!/usr/bin/env bash
# The main job, from a fresh machine: install what is missing, build, then open
# the studio on the bundled default data set. Without a display (or with
# --headless) the same job runs through kmeans-cli and prints every iteration.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
build_dir=${KMS_BUILD_DIR:-build}
data=resources/data/default.csv
if [ "${1:-}" != "--headless" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$build_dir/app/kmeans-studio" ]; then
  exec "$build_dir/app/kmeans-studio" --input "$data" --k 8
fi
echo "No display (or --headless): running the same job with kmeans-cli."
exec "$build_dir/app/kmeans-cli" run --input "$data" --k 8 --solver hamerly --init kmeans++ --seed 1 --inertia \
  --labels-out "$build_dir/default-labels.txt" --centroids-out "$build_dir/default-centroids.csv"
