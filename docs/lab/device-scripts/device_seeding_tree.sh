#!/usr/bin/env bash
# On the lent machine's CPU (issue 41, the seeding's tree of boxes): plain k-means++, bounded
# k-means++ and k-means‖ at 1, 4 and 8 threads (those of them up to nproc), n = 10^6 × 2 blobs and
# uniform, k = 1000, seeds 0-2
# (the median of each), seeding only (`init.time_ms` of a one-step run), by this pack's kmeans-cli
# (`new`) and by main 11c3fad's (`main`: Raff's centre lists), carried as bin/kmeans-cli-main.
# Also checks that both give the same centres (one Lloyd step from them, the files compared).
# Usage: OUT=DIR KMS_DEVICE_CARRY=.devcarry-seed docs/lab/device-scripts/device_seeding_tree.sh   (~1.5 min
# on 8 cores; KMS_N and KMS_THREADS: a smaller trial; run it under taskset to give it its cores)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
cores=$(nproc)
echo "cores: $cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)); load: $(cut -d' ' -f1-3 /proc/loadavg)"
threads_list=""
for t in ${KMS_THREADS:-1 4 8}; do [ "$t" -le "$cores" ] && threads_list="$threads_list $t"; done
echo "| data | threads | seeding | build | ms (median of 3 seeds) | point distances | candidates |"
echo "|---|---:|---|---|---:|---:|---:|"
for data in blobs uniform; do
  generate_points $data ${KMS_N:-1000000} 2 "$work/$data.npy" || exit 1
  for threads in $threads_list; do
    for how in "kmeans++ off new" "kmeans++ on new" "kmeans++ on main" "kmeans-parallel auto new" "kmeans-parallel auto main"; do
      read -r init bounds build <<<"$how"
      exe=$cli; [ "$build" = main ] && exe="$work/bin/kmeans-cli-main"
      rows=()
      for seed in 0 1 2; do
        rows+=("$(OMP_WAIT_POLICY=passive "$exe" run --input "$work/$data.npy" --k 1000 --backend omp --threads $threads \
          --init $init --init-bounds $bounds --seed $seed --max-iter 1 --report json \
          --centroids-out "$work/c-$data-$threads-$init-$bounds-$build-$seed.csv" 2>/dev/null | python3 -c '
import json, sys
s = [json.loads(l) for l in sys.stdin if "\"summary\"" in l][-1]["init"]
print(s["time_ms"], s["point_centroid_distances"], s.get("candidates", 0))')")
      done
      med=$(printf '%s\n' "${rows[@]}" | sort -n | sed -n 2p)
      read -r ms dist cand <<<"$med"
      echo "| $data | $threads | $init, bounds $bounds | $build | $ms | $dist | $cand |"
    done
  done
  # Same centres: bounded = plain (new), and new = main for both bounded and k-means‖.
  same=0; differ=0
  for threads in $threads_list; do for seed in 0 1 2; do
    for pair in "kmeans++-off-new kmeans++-on-new" "kmeans++-on-new kmeans++-on-main" "kmeans-parallel-auto-new kmeans-parallel-auto-main"; do
      read -r a b <<<"$pair"
      if cmp -s "$work/c-$data-$threads-$a-$seed.csv" "$work/c-$data-$threads-$b-$seed.csv"; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFER: $data $threads $seed $a $b"; fi
    done
  done; done
  echo "$data: centroid files identical in $same pairs, different in $differ"
done
