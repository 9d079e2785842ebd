#!/usr/bin/env bash
# On the CUDA machine (issue 41): Raff's bounds in the GPU k-means++ seeding. test_cuda_init
# (bounded = plain = CPU, bit for bit; fewer distances), compute-sanitizer memcheck and racecheck
# on a bounded seeding, then the seeding's time and distances, plain against bounded, on the GPU
# (and the CPU's 16 threads at d = 2), 10^6 points, blobs (100) and uniform, medians of 3 runs.
# Usage: OUT=DIR docs/lab/device-scripts/device_seeding_gpu.sh
#   KMS_SEED_TABLE_ONLY=1: the table alone; KMS_SEED_D ("2 16 64"), KMS_SEED_K ("100 1000"),
#   KMS_SEED_CPU (1: also the CPU at d = 2), KMS_SEED_BOUNDS ("off on", "auto" may be added)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
record_device > /dev/null
bin=$work/bin
if [ -z "${KMS_SEED_TABLE_ONLY:-}" ]; then
timeout 300 "$bin/test_cuda_init" > "$out/test_cuda_init.log" 2>&1; echo "test_cuda_init: exit $? $(grep -h '^Totals' "$out/test_cuda_init.log")"
grep -h "point distances bounded" "$out/test_cuda_init.log" | sed 's/^QINFO *: *//' | head -8
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$cli" run --generate blobs:n=6000,d=3,k=20 --k 300 --backend cuda \
    --init-bounds on --max-iter 1 --seed 2 > "$out/sanitizer-$tool.log" 2>&1
  echo "compute-sanitizer $tool (bounded GPU seeding, 6000 x 3, k = 300): exit $? $(grep -h 'ERROR SUMMARY' "$out/sanitizer-$tool.log")"
done
fi
echo "| data | d | k | where | bounds | seeding ms (median of 3) | point distances | same start as plain |"
echo "|---|---:|---:|---|---|---:|---:|---|"
for kind in blobs uniform; do
  for d in ${KMS_SEED_D:-2 16 64}; do
    generate_points $kind 1000000 $d "$work/x.npy" || continue
    for k in ${KMS_SEED_K:-100 1000}; do
      wheres="cuda"; [ $d = 2 ] && [ "${KMS_SEED_CPU:-1}" = 1 ] && wheres="cuda omp"
      for where in $wheres; do
        for bounds in ${KMS_SEED_BOUNDS:-off on}; do
          times=()
          for rep in 1 2 3; do
            # (one Lloyd step after the seeding: equal centroid files after it mean equal starts)
            "$cli" run --input "$work/x.npy" --k $k --backend $where --init kmeans++ --init-bounds $bounds --seed 5 \
              --max-iter 1 --report json --centroids-out "$work/c-$bounds.csv" 2>/dev/null > "$work/r.json"
            times+=("$(python3 -c 'import json,sys; s=[json.loads(l) for l in open(sys.argv[1]) if "\"summary\"" in l][-1]["init"]; print(s["time_ms"], s["point_centroid_distances"])' "$work/r.json")")
          done
          med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
          same=""; [ $bounds != off ] && { cmp -s "$work/c-off.csv" "$work/c-$bounds.csv" && same=yes || same=NO; }
          echo "| $kind | $d | $k | $where | $bounds | ${med% *} | ${med#* } | $same |"
        done
      done
    done
  done
done
