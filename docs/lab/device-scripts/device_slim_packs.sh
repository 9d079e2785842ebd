#!/usr/bin/env bash
# Several packs in one device call must fit the carry limit (64 MiB): this moves the
# shared libraries of the given carry folders' packs (DIR/pack.tar.xz) into one pack,
# .devcarry-libs/libs.tar.xz, and leaves each pack its binaries (device_common.sh unpacks
# both). Usage: docs/lab/device-scripts/device_slim_packs.sh .devcarry-a .devcarry-b ...
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
libs=$(mktemp -d)
mkdir -p "$libs/lib" "$root/.devcarry-libs"
for carry in "$@"; do
  stage=$(mktemp -d)
  tar -C "$stage" -xJf "$root/$carry/pack.tar.xz"
  if [ -d "$stage/lib" ]; then cp -n "$stage"/lib/* "$libs/lib/" 2>/dev/null || true; rm -rf "$stage/lib"; fi
  tar -C "$stage" -cJf "$root/$carry/pack.tar.xz" .
  rm -rf "$stage"
  ls -la "$root/$carry/pack.tar.xz"
done
tar -C "$libs" -cJf "$root/.devcarry-libs/libs.tar.xz" lib
rm -rf "$libs"
ls -la "$root/.devcarry-libs/libs.tar.xz"
