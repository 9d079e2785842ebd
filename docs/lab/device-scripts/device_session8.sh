#!/usr/bin/env bash
# The eighth session's device call: independent lanes at once on a many-core GPU machine, each
# pinned to its own cores, so that the CPU lanes measure 16 cores each (nproc inside a lane is its
# core count): seed (the seeding order's GPU test, plain/bounded/k-means‖ at 1-16 threads, the GPU
# seeding table; on the last GPU), ranks (--devices under MPI ranks on the other GPUs, then the
# 4-GPU scaling once seed is done), solvers (issue 41's CPU grid), highd (issue 37's CPU grid). A job
# whose pack is absent is skipped. Every lane's files are tarred into $OUT/lanes.tar.gz; the lanes'
# summaries are printed. Usage: OUT=DIR docs/lab/device-scripts/device_session8.sh
#   (KMS_LANES: which of "gpu solvers highd", default all; gpu = seed + ranks)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
final=${OUT:?}
lanes=$(mktemp -d)
cores=$(nproc)
run_job() {  # LANE CORES CARRY SCRIPT [VAR=VALUE...]
  local name=$1 set=$2 carry=$3 script=$4; shift 4
  if [ ! -f "$root/$carry/pack.tar.xz" ]; then echo "lane $name: no $carry/pack.tar.xz, $script skipped"; return; fi
  env "$@" OUT="$lanes/$name" KMS_DEVICE_CARRY="$carry" taskset -c "$set" "$here/$script"
  echo "lane $name: $script $* exit $?"
}
wanted=" ${KMS_LANES:-gpu solvers highd} "
# 64 cores: a lane of 16 each (the GPU jobs on 32-47). 32 cores: highd then the seeding's
# thread table on 0-15, solvers on 16-31 with the GPU jobs beside it (they mostly wait on the GPU).
after_highd=0
if [ "$cores" -ge 64 ]; then gpu_cores=32-47; threads_cores=48-63; solvers_cores=0-15; highd_cores=16-31
elif [ "$cores" -ge 32 ]; then gpu_cores=16-31; threads_cores=0-15; solvers_cores=16-31; highd_cores=0-15; after_highd=1
else gpu_cores=0-$((cores - 1)); threads_cores=$gpu_cores; solvers_cores=$gpu_cores; highd_cores=$gpu_cores; fi
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
mkdir -p "$lanes"/{seed,threads,ranks,solvers,highd}
start=$SECONDS
# Each lane's summary is written straight into $OUT (it comes back even if the call is cut
# short); its other files go into the tarball at the end.
if [[ $wanted == *" gpu "* ]]; then
  # The seeding on the last GPU, the ranks' tests on the others at the same time; the 4-GPU
  # scaling once the seeding lane is done (its timings then have the GPUs to themselves).
  seed_env=(); ranks_env=()
  if [ "$gpus" -ge 4 ]; then
    seed_env=(CUDA_VISIBLE_DEVICES=$((gpus - 1))); ranks_env=(CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((gpus - 2))))
  fi  # (fewer GPUs: the ranks' tests after the seeding, on every GPU)
  (
    run_job seed "$gpu_cores" .devcarry-seed device_seeding_order.sh "${seed_env[@]}"
    run_job seed "$gpu_cores" .devcarry-seed device_seeding_sanitize.sh "${seed_env[@]}"
    run_job seed "$gpu_cores" .devcarry-seed device_seeding_gpu_table.sh "${seed_env[@]}"
    touch "$lanes/seed.done"
  ) > "$final/seed.txt" 2>&1 &
  if [ $after_highd = 0 ] || [[ $wanted != *" highd "* ]]; then
    run_job threads "$threads_cores" .devcarry-seed device_seeding_threads.sh > "$final/threads.txt" 2>&1 &
  fi
  (
    [ "$gpus" -lt 4 ] && while [ ! -f "$lanes/seed.done" ]; do sleep 2; done
    run_job ranks "$gpu_cores" .devcarry-gpu device_ranks_devices.sh "${ranks_env[@]}" KMS_RANKS_SCALE=0
    while [ ! -f "$lanes/seed.done" ]; do sleep 2; done
    [ "$gpus" -ge 4 ] && run_job ranks "$gpu_cores" .devcarry-gpu device_ranks_devices.sh KMS_RANKS_TESTS=0
  ) > "$final/ranks.txt" 2>&1 &
fi
[[ $wanted == *" solvers "* ]] && run_job solvers "$solvers_cores" .devcarry-solvers device_solvers_grid.sh > "$final/solvers.txt" 2>&1 &
if [[ $wanted == *" highd "* ]]; then
  (
    run_job highd "$highd_cores" .devcarry-highd device_cpu_highd.sh > "$final/highd.txt" 2>&1
    if [ $after_highd = 1 ] && [[ $wanted == *" gpu "* ]]; then
      run_job threads "$threads_cores" .devcarry-seed device_seeding_threads.sh > "$final/threads.txt" 2>&1
    fi
  ) &
fi
wait
echo "all lanes done in $((SECONDS - start)) s on $cores cores ($(lscpu | sed -n 's/^Model name: *//p'))"
for f in "$final"/*.txt; do echo "=== ${f#$final/}"; tail -n 40 "$f"; done
tar -C "$lanes" -czf "$final/lanes.tar.gz" .
