#!/usr/bin/env bash
# device_seeding_gpu.sh's table alone, GPU only, k = 1000 at d = 2 and 64 with bounds off, on and auto
# (the seeding order's effect on the GPU rounds, and auto's rule). Usage as device_seeding_gpu.sh.
KMS_SEED_TABLE_ONLY=1 KMS_SEED_D="2 64" KMS_SEED_K=1000 KMS_SEED_CPU=0 KMS_SEED_BOUNDS="off on auto" \
  exec "$(dirname "$0")/device_seeding_gpu.sh" "$@"
