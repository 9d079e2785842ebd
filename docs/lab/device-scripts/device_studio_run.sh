#!/usr/bin/env bash
# On the CUDA machine: unpack .studio-dev/pack.tar.xz (docs/lab/device-scripts/device_studio_pack.sh),
# start Xvfb (Mesa GLX for the server), and run kmeans-studio on the CUDA back end
# with NVIDIA's GLX for the client, so the CUDA-GL interop path writes the colours.
# Screenshots and logs go to ${OUT:-./device-out}.
# Usage: docs/lab/device-scripts/device_studio_run.sh [GENERATE_SPEC]   (default blobs:n=1000000,k=20,d=2)
#        KMS_STUDIO_CASES=compare docs/lab/device-scripts/device_studio_run.sh   (compare panels, interop against host path)
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-$root/device-out}
spec=${1:-blobs:n=1000000,k=20,d=2}
mkdir -p "$out"
work=$(mktemp -d)
tar -C "$work" -xJf "$root/.studio-dev/pack.tar.xz"
# Xvfb runs xkbcomp from its compiled-in directory; a bare machine has none.
[ -x /usr/bin/xkbcomp ] || cp "$work/bin/xkbcomp" /usr/bin/xkbcomp
nvidia_libs=$(dirname "$(ldconfig -p | awk '/libGLX_nvidia.so.0/{print $NF; exit}')" 2>/dev/null)
[ -n "$nvidia_libs" ] || nvidia_libs=/usr/local/nvidia/lib64
export LD_LIBRARY_PATH="$work/lib:$nvidia_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
printf '<?xml version="1.0"?>\n<fontconfig><dir>%s/fonts</dir><cachedir>%s/fontcache</cachedir></fontconfig>\n' "$work" "$work" > "$work/fonts.conf"
export FONTCONFIG_FILE="$work/fonts.conf" QT_PLUGIN_PATH="$work/plugins" QT_QPA_PLATFORM=xcb QT_XCB_GL_INTEGRATION=xcb_glx
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
LIBGL_DRIVERS_PATH="$work/dri" __GLX_VENDOR_LIBRARY_NAME=mesa \
  "$work/bin/Xvfb" :77 -screen 0 1920x1080x24 -xkbdir "$work/xkb" +extension GLX -nolisten tcp > "$out/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 50); do [ -e /tmp/.X11-unix/X77 ] && break; sleep 0.1; done
# KMS_CLIENT_GLX and KMS_STUDIO_BACKEND only for a dry run of this script on a machine without CUDA.
export DISPLAY=:77 __GLX_VENDOR_LIBRARY_NAME=${KMS_CLIENT_GLX:-nvidia}
backend=${KMS_STUDIO_BACKEND:-cuda-global}
studio() {  # name, then kmeans-studio's options
  local name=$1; shift
  echo "== $name: kmeans-studio $*" | tee -a "$out/studio.log"
  timeout 120 "$work/bin/kmeans-studio" --generate "$spec" --seed 7 --k 20 --size "${KMS_STUDIO_SIZE:-1600x1000}" \
    --screenshot "${KMS_SHOT_DIR:-$out}/$name.png" "$@" >> "$out/studio.log" 2>&1
  echo "exit $?" | tee -a "$out/studio.log"
  tail -2 "$out/studio.log"
}
if [ "${KMS_STUDIO_CASES:-}" = compare ]; then
  # Issue 36: compare panels of CUDA runs through the interop path, against the host
  # path (KMS_STUDIO_INTEROP=off) on the same runs; the scripted run prints the wall
  # time of its steps with the display's work (CUDA solvers step in lockstep).
  for size in 1920x1080 1280x720; do
    for interop in on off; do
      shots=$out
      [ "$interop" = off ] && shots=$work  # the host path's pictures look the same: kept off $OUT's 8 files
      KMS_SHOT_DIR=$shots KMS_STUDIO_SIZE=$size KMS_STUDIO_INTEROP=$interop studio "compare3-$size-interop-$interop" \
        --compare hamerly,elkan,lloyd --backend "$backend" --colour labels --steps 12
    done
  done
  for interop in on off; do
    shots=$out
    [ "$interop" = off ] && shots=$work
    KMS_SHOT_DIR=$shots KMS_STUDIO_SIZE=1920x1080 KMS_STUDIO_INTEROP=$interop studio "single-1920x1080-interop-$interop" \
      --solver lloyd --backend "$backend" --colour labels --steps 12
  done
  kill "$xvfb" 2>/dev/null
  exit 0
fi
studio cuda-bounds-hamerly --solver hamerly --backend "$backend" --colour bounds --steps 3
studio cuda-bounds-elkan --solver elkan --backend "$backend" --colour bounds --steps 3
studio cuda-labels-hamerly --solver hamerly --backend "$backend" --colour labels --steps 3
# The host bounds view of the same run, for comparison.
studio host-bounds-hamerly --solver hamerly --backend omp --colour bounds --steps 3
kill "$xvfb" 2>/dev/null
