#!/usr/bin/env bash
# On the CUDA machine (issue 41): the seeding's two-level summation order (a block's sum
# adds its 64-point sub-blocks' sums; D² sampling walks block, sub-block, point) on the
# GPU as on the CPU. test_cuda_init (GPU plain = GPU bounded = CPU, bit for bit), then
# kmeans-cli's seeding at 2·10^5 × 2, k = 1000 on the GPU (bounds off and on) and on the
# CPU: one Lloyd step after it, the centroid files byte for byte. Well under 3 minutes.
# Pack: KMS_DEVICE_CARRY=.devcarry-seed docs/lab/device-scripts/device_pack.sh BUILD (a CUDA build
# of test_cuda_init and kmeans-cli). Usage: OUT=DIR KMS_DEVICE_CARRY=.devcarry-seed docs/lab/device-scripts/device_seeding_order.sh
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
record_device > /dev/null
timeout 150 "$work/bin/test_cuda_init" > "$out/test_cuda_init.log" 2>&1
echo "test_cuda_init: exit $? $(grep -h '^Totals' "$out/test_cuda_init.log")"
grep -h "^FAIL" -A2 "$out/test_cuda_init.log" | head -20
"$cli" generate --generate blobs:n=200000,k=100,d=2 --seed 7 --out "$work/x.npy" > /dev/null
for run in "omp off" "cuda off" "cuda on"; do
  read -r where bounds <<<"$run"
  timeout 60 "$cli" run --input "$work/x.npy" --k 1000 --backend $where --init kmeans++ --init-bounds $bounds --seed 5 \
    --max-iter 1 --report json --centroids-out "$work/c-$where-$bounds.csv" > "$out/cli-$where-$bounds.json" 2>&1
  echo "kmeans-cli $where bounds $bounds: exit $?"
done
for run in cuda-off cuda-on; do
  cmp -s "$work/c-omp-off.csv" "$work/c-$run.csv" && echo "$run: the CPU's centroids, byte for byte" || echo "$run: DIFFERS from the CPU"
done
