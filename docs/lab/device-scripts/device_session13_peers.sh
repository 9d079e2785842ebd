#!/usr/bin/env bash
# Session 13: the highd suite's rows with the peers (PyTorch eager/compiled FP32, compiled TF32,
# flash-kmeans TF32/fp16) beside ours in the same call. Ours: .devcarry-hb's kmeans-cli (helper B's
# sm_90 build whose GPU code landed unchanged as a219442, main's kernels now).
# Usage: OUT=DIR bash docs/lab/device-scripts/device_session13_peers.sh PART...   PART: k100 (d 16-256, both data), k1000 (d 16-256 +
# blobs 4e6 x 128, k = 1024). Carry: .devcarry-hb, .devcarry-flash.
set -uo pipefail
cd "$(dirname "$0")/../../.."
here=$PWD/docs/lab/device-scripts
out=${OUT:?}
start=$SECONDS
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
export KMS_DEVICE_CARRY=.devcarry-hb
highd() {  # NAME K D EXTRA
  KMS_HIGHD_CONFIGS="tf32 auto" KMS_HIGHD_D="$3" KMS_HIGHD_K="$2" KMS_HIGHD_EXTRA="$4" \
    OUT="$out/$1" timeout "$(( ${KMS_PEERS_BUDGET:-280} - (SECONDS - start) ))" "$here/device_highd.sh" bench > "$out/$1.log" 2>&1
  echo "== $1 (exit $?, at $((SECONDS - start)) s): ours (medians of steps 3-12: total / assignment / update ms, certified share)"
  grep -E "^(blobs|uniform) n=" "$out/$1.log" | python3 -c '
import json, sys
for line in sys.stdin:
    name, rest = line.split(": ", 1)
    parts = []
    for chunk in rest.split(" | "):
        config, data = chunk.split(" ", 1)
        r = json.loads(data)
        parts.append("%s %s" % (config, "failed" if r.get("failed") else "%.3f / %.3f / %.3f (%.1f %%)" % (
            r["total"], r["assign"], r["update"], 100 * r["certified"])))
    print("  %s: %s" % (name, "; ".join(parts)))'
  echo "== $1: against the peers (report.md)"
  sed -n '/^ms per Lloyd step/,/^## /p' "$out/$1/highd/report.md" 2>/dev/null | grep -v "^## "
  grep -E "failed|Error|Traceback" "$out/$1.log" | head -5
}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
for part in "$@"; do
  case $part in
    k100) highd k100 100 "16 32 64 128 256" "" ;;
    k1000) highd k1000 1000 "16 32 64 128 256" "blobs:4000000:128:1024" ;;
    k100hi) highd k100hi 100 "64 128 256" "" ;;
    k100lo) highd k100lo 100 "16 32" "" ;;
    k1000lo) highd k1000lo 1000 "16 32" "" ;;
    k1000hi) highd k1000hi 1000 "64 128 256" "blobs:4000000:128:1024" ;;
    *) echo "peers.sh: unknown part $part" ;;
  esac
done
echo "== took $((SECONDS - start)) s"
