#!/usr/bin/env bash
# On a CUDA machine: time configurations of one data set by phase (median assignment,
# update and step over iterations 2..N) and print each run's centroid-file checksum,
# so that runs meant to give the same bits can be compared. Data: uniform points
# (KMS_PHASE_KIND=blobs: 100 Gaussian blobs), seed 7, float, generated once into /dev/shm (reading a large .npy from the device
# machine's disk took ~45 s per run).
# Usage: KMS_PHASE_N=400000000 KMS_PHASE_D=4 KMS_PHASE_ITER=8 docs/lab/device-scripts/device_phases.sh CONFIG_FILE
#   CONFIG_FILE: one run per line, "K TAG CLI ARGS...", CLI "-" for the pack's kmeans-cli,
#   "mpiM" for it as M ranks under the machine's mpirun (docs/lab/device-scripts/device_mpi_env.sh), another
#   path for a variant carried beside the pack; ARGS passed to `kmeans-cli run`.
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
configs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${KMS_PHASE_N:-100000000}; d=${KMS_PHASE_D:-4}; iters=${KMS_PHASE_ITER:-8}
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv | tee "$out/device.txt"
kind=${KMS_PHASE_KIND:-uniform}
spec="$kind:n=$n,d=$d"
[ "$kind" = blobs ] && spec="$spec,k=100"
data=/dev/shm/kms-phase-$kind-$n-$d.npy
start=$(date +%s.%N)
[ -f "$data" ] || "$cli" generate --generate "$spec" --seed 7 --out "$data" > /dev/null || exit 1
echo "data $kind $n x $d ready in $(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 1))" "$(date +%s.%N)" "$start") s" | tee -a "$out/phases.txt"
while read -r k tag exe args; do
  [ -z "$k" ] || [ "${k:0:1}" = "#" ] && continue
  launch=()
  [ "$exe" = - ] && exe=$cli
  if [[ "$exe" =~ ^mpi([0-9]+)$ ]]; then
    source "$(dirname "$0")/device_mpi_env.sh"
    launch=(mpirun -n "${BASH_REMATCH[1]}" --mca btl self,vader --mca pml ob1 --bind-to none)
    exe=$cli
  fi
  # shellcheck disable=SC2086
  "${launch[@]}" "$exe" run --input "$data" --k "$k" --init random --seed 3 --backend cuda --precision f32 $args \
    --max-iter "$iters" --tol 0 --report json --centroids-out "$work/c-$k-$tag.csv" > "$work/r-$k-$tag.json" 2>&1 < /dev/null
  rc=$?
  python3 - "$work/r-$k-$tag.json" "$k" "$tag" "$rc" "$(md5sum < "$work/c-$k-$tag.csv" 2>/dev/null | cut -c1-12)" "$args" <<'PY' | tee -a "$out/phases.txt"
import json, statistics, sys
path, k, tag, rc, digest, args = sys.argv[1:]
it = [json.loads(l) for l in open(path) if l.startswith('{"type":"iteration"')]
if not it:
    print(f"k={k} {tag}: exit {rc}: " + open(path).read()[-600:].replace("\n", " ")); sys.exit()
later = it[1:] or it
med = lambda key: statistics.median(x[key] for x in later)
print(f"k={k:>5} {tag:<28} assign {med('time_assign_ms'):9.3f}  update {med('time_update_ms'):8.3f}  step {med('time_total_ms'):9.3f} ms"
      f"  centroids {digest}  ({args.strip()})")
PY
done < "$configs"
