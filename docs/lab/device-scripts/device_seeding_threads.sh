#!/usr/bin/env bash
# On the lent machine's CPU (issue 41): plain k-means++, bounded k-means++ and k-means‖ at 1, 4 and 16
# threads, n = 10^6 × 2 blobs, k = 1000, seeds 0-2 (the median of each), seeding only (`init.time_ms`
# of a one-step run): where the bounds pay as the threads grow, for --init-bounds auto's rule.
# Usage: OUT=DIR KMS_DEVICE_CARRY=.devcarry-seed docs/lab/device-scripts/device_seeding_threads.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
generate_points blobs 1000000 2 "$work/x.npy" || exit 1
echo "| threads | seeding | ms (median of 3 seeds) | point distances | candidates |"
echo "|---:|---|---:|---:|---:|"
for threads in 1 4 16; do
  for how in "kmeans++ off" "kmeans++ on" "kmeans-parallel auto"; do
    read -r init bounds <<<"$how"
    rows=()
    for seed in 0 1 2; do
      rows+=("$(OMP_WAIT_POLICY=passive "$cli" run --input "$work/x.npy" --k 1000 --backend omp --threads $threads --init $init \
        --init-bounds $bounds --seed $seed --max-iter 1 --report json 2>/dev/null | python3 -c '
import json, sys
s = [json.loads(l) for l in sys.stdin if "\"summary\"" in l][-1]["init"]
print(s["time_ms"], s["point_centroid_distances"], s.get("candidates", 0))')")
    done
    med=$(printf '%s\n' "${rows[@]}" | sort -n | sed -n 2p)
    read -r ms dist cand <<<"$med"
    echo "| $threads | $init, bounds $bounds | $ms | $dist | $cand |"
  done
done
