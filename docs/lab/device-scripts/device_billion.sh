#!/usr/bin/env bash
# On a multi-GPU machine (issue 17's measure): 10^9 × 4-D float points generated in
# place (no file: reading 16 GB took longer than the runs), one GPU against all of
# them, median step and the centroid files compared.
# Usage: docs/lab/device-scripts/device_billion.sh [N] [K]
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
n=${1:-1000000000}; k=${2:-100}
all=$(seq -s, 0 $(($(nvidia-smi -L | wc -l) - 1)))
for how in "0" "$all"; do
  start=$(date +%s)
  "$cli" run --generate "uniform:n=$n,d=4" --seed 7 --k "$k" --init random --backend cuda --precision f32 \
    --devices "$how" --max-iter 6 --tol 0 --report json --centroids-out "$work/c-$how.csv" > "$work/r.json" 2>&1 < /dev/null
  rc=$?
  python3 - "$work/r.json" "$how" "$rc" "$(( $(date +%s) - start ))" "$(md5sum < "$work/c-$how.csv" | cut -c1-12)" <<'PY' | tee -a "$out/billion.txt"
import json, statistics, sys
path, how, rc, wall, digest = sys.argv[1:]
it = [json.loads(l) for l in open(path) if l.startswith('{"type":"iteration"')]
if not it: print(f"--devices {how}: exit {rc}: " + open(path).read()[-500:]); sys.exit()
m = lambda key: statistics.median(x[key] for x in it[1:])
print(f"--devices {how}: median step (iterations 2-{len(it)}) {m('time_total_ms'):.2f} ms (assign {m('time_assign_ms'):.2f}, update {m('time_update_ms'):.2f}), wall {wall} s, centroids {digest}")
PY
done
