# Sourced by the device scripts: unpacks the packed binaries (scripts/device_pack.sh,
# .devcarry-gpu/pack.tar.xz or $KMS_DEVICE_CARRY/pack.tar.xz) into $work, puts their
# libraries on LD_LIBRARY_PATH, and makes $out (${OUT:-./device-out}); sets $root, $cli (KMS_CLI overrides).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/device-out}
mkdir -p "$out"
work=$(mktemp -d)
tar -C "$work" -xJf "$root/${KMS_DEVICE_CARRY:-.devcarry-gpu}/pack.tar.xz"
export LD_LIBRARY_PATH="$work/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"
cli="${KMS_CLI:-$work/bin/kmeans-cli}"  # KMS_CLI: another build's, e.g. a baseline carried beside the pack
