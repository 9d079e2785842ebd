# Sourced by the device scripts: unpacks the packed binaries (docs/lab/device-scripts/device_pack.sh,
# .devcarry-gpu/pack.tar.xz or $KMS_DEVICE_CARRY/pack.tar.xz) into $work, puts their
# libraries on LD_LIBRARY_PATH, and makes $out (${OUT:-./device-out}); sets $root, $cli (KMS_CLI overrides).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
out=${OUT:-$root/device-out}
mkdir -p "$out"
work=$(mktemp -d)
tar -C "$work" -xJf "$root/${KMS_DEVICE_CARRY:-.devcarry-gpu}/pack.tar.xz"
# Packs carried together may leave their shared libraries to one pack of them
# (device_slim_packs.sh): .devcarry-libs/libs.tar.xz, unpacked beside (existing files kept).
[ -f "$root/.devcarry-libs/libs.tar.xz" ] && tar -C "$work" --skip-old-files -xJf "$root/.devcarry-libs/libs.tar.xz"
export LD_LIBRARY_PATH="$work/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"
cli="${KMS_CLI:-$work/bin/kmeans-cli}"  # KMS_CLI: another build's, e.g. a baseline carried beside the pack

# The GPU this run measured, into $out/device.txt (and the log).
record_device() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
}

# generate_points KIND N D FILE: the benchmarks' data, seed 7 — KIND blobs (100 Gaussian
# blobs) or uniform, N points in D dimensions, as float .npy; says so and fails if not.
generate_points() {
  local spec="$1:n=$2,d=$3"
  [ "$1" = blobs ] && spec="$spec,k=100"
  "$cli" generate --generate "$spec" --seed 7 --out "$4" >/dev/null || { echo "generate $spec failed"; return 1; }
}

# step_medians CLI RUN-ARGS... → one JSON object: the medians over steps 3.. of a
# `CLI run ... --report json` of time_total_ms, time_assign_ms and time_update_ms, and
# the steps counted ({"failed": true} if none).
step_medians() {
  "$@" --report json 2>/dev/null | python3 -c '
import json, statistics, sys
its = [json.loads(l) for l in sys.stdin if l.startswith("{")]
its = [r for r in its if r.get("type") == "iteration"][2:]
keys = {"total": "time_total_ms", "assign": "time_assign_ms", "update": "time_update_ms"}
print(json.dumps({m: round(statistics.median(r[f] for r in its), 4) for m, f in keys.items()} | {"steps": len(its)}
                 if its else {"failed": True}))'
}
