#!/usr/bin/env bash
# On a GPU machine (issue 42): --devices under MPI ranks. tests/mpi/cli_ranks_cuda.sh with 2 (and 3)
# ranks, each rank listing "0,0" (two blocks on device 0: any GPU machine) and, with 2 or more
# GPUs, "all" (the machine's GPUs shared out among the ranks): files byte-identical to one
# process's --devices 0. With 4 or more GPUs also the scaling at KMS_SCALE_N (4·10^8) × 4, k = 100,
# f32, 10 steps: --devices 0, 0,1 and all in one process and 2 ranks × --devices all
# (device_devices.sh bench). Usage: OUT=DIR docs/lab/device-scripts/device_ranks_devices.sh
#   KMS_RANKS_TESTS=0 / KMS_RANKS_SCALE=0: leave out the tests / the scaling (CUDA_VISIBLE_DEVICES is honoured).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/device_common.sh"
source "$here/device_mpi_env.sh"
record_device
gpus=$(nvidia-smi -L | wc -l)
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && gpus=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
if [ "${KMS_RANKS_TESTS:-1}" = 1 ]; then
  lists="0,0"; [ "$gpus" -ge 2 ] && lists="0,0 all"
  KMS_RANK_DEVICES="$lists" timeout 330 "$root/tests/mpi/cli_ranks_cuda.sh" "$cli" mpirun 2 > "$out/cli_ranks_cuda.log" 2>&1
  echo "cli_ranks_cuda.sh ($gpus GPUs visible; ranks x --devices $lists): exit $?"
  grep -E "FAIL|ranks x|cli_ranks_cuda:" "$out/cli_ranks_cuda.log" | tail -20
fi
if [ "${KMS_RANKS_SCALE:-1}" = 1 ] && [ "$gpus" -ge 4 ]; then
  KMS_SCALE_N=${KMS_SCALE_N:-400000000} KMS_SCALE_K=100 KMS_SCALE_ITER=10 KMS_SCALE_SPLITS="0,1" KMS_SCALE_DEVICE=0 \
    KMS_SCALE_RANKS=2 timeout 300 "$here/device_devices.sh" bench 2>&1 | tail -12
fi
