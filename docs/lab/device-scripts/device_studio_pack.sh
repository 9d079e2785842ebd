#!/usr/bin/env bash
# Pack the CUDA build of kmeans-studio with everything needed to show it on the
# device machine, which has the NVIDIA driver but no X server and no Qt: Xvfb and
# xkbcomp with the XKB data, Mesa's swrast DRI driver (Xvfb's own GLX), the Qt xcb
# platform and GLX integration plugins, one font, and every non-glibc library
# they load (from ldd). Writes .studio-dev/pack.tar.xz for docs/lab/device-scripts/device_studio_run.sh.
# Usage: docs/lab/device-scripts/device_studio_pack.sh CUDA_BUILD_DIR
set -euo pipefail
build=${1:?CUDA build directory holding app/kmeans-studio}
root=$(cd "$(dirname "$0")/../../.." && pwd)
qt_plugins=$(dirname "$(dirname "$(find /usr/lib -path '*qt6/plugins/platforms/libqxcb.so' | head -1)")")
dri=$(dirname "$(find /usr/lib -name swrast_dri.so | head -1)")
stage=$(mktemp -d)
mkdir -p "$stage"/{bin,lib,plugins/platforms,plugins/xcbglintegrations,dri,xkb,fonts} "$root/.studio-dev"
cp "$build/app/kmeans-studio" /usr/bin/Xvfb /usr/bin/xkbcomp "$stage/bin/"
cp "$qt_plugins/platforms/libqxcb.so" "$stage/plugins/platforms/"
cp "$qt_plugins/xcbglintegrations/libqxcb-glx-integration.so" "$stage/plugins/xcbglintegrations/"
cp "$dri/swrast_dri.so" "$stage/dri/"
cp -r /usr/share/X11/xkb/. "$stage/xkb/"
cp "$(fc-match -f '%{file}' sans)" "$stage/fonts/"
# Mesa's GLX vendor library for the X server's side; the clients use NVIDIA's.
cp -L /usr/lib/x86_64-linux-gnu/libGLX_mesa.so.0 "$stage/lib/"
for object in "$stage"/bin/* "$stage"/plugins/*/*.so "$stage"/dri/*.so "$stage"/lib/*.so*; do
  ldd "$object" | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      # glibc and the compiler runtime: the device's own are newer; the driver's are its own
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libgcc_s.so*|libstdc++.so*|libcuda.so*|libnvidia*) ;;
      *) cp -Ln "$lib" "$stage/lib/" 2>/dev/null || true ;;
    esac
  done
done
# Stripped, and xz with its x86 filter for the machine code (Mesa's LLVM alone is
# 112 MB): the pack must fit the device's carry limit beside the working tree.
strip --strip-unneeded "$stage"/bin/kmeans-studio "$stage"/lib/*.so* "$stage"/dri/*.so "$stage"/plugins/*/*.so 2>/dev/null || true
tar -C "$stage" -cf - . | xz --x86 --lzma2=preset=9e -T"$(nproc)" > "$root/.studio-dev/pack.tar.xz"
rm -rf "$stage"
ls -la "$root/.studio-dev/pack.tar.xz"
