#!/usr/bin/env bash
# On the CUDA machine: issue 14's low-d, large-k shapes — our CUDA solvers (f32, --variant
# auto) per step against PyTorch's best simple form on the same points, in one run, with
# the floors. Also the same 10^7 × 2-D points sorted by their first coordinate (labels in
# long runs: the package update's worst order). KMS_BASE_CLI: a baseline build's CLI, run
# on the same data beside ours. Unpacks .devcarry-gpu/pack.tar.xz (docs/lab/device-scripts/device_pack.sh).
# PyTorch's step: bench/gpu/torch_step.py.
# Usage: OUT=DIR docs/lab/device-scripts/device_lowd.sh   → DIR/lowd.txt
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
shapes=${KMS_LOWD_SHAPES:-"1000000:2:100 1000000:2:1000 1000000:4:1000 1000000:1:100 10000000:2:100 10000000:2:100:sorted"}
record_device
step_ms() {  # CLI SOLVER K FILE → median time_total_ms of steps 3..12
  step_medians "$1" run --input "$4" --k "$3" --solver "$2" --backend cuda --precision f32 --init random --seed 3 \
    --max-iter 12 --tol 0 | python3 -c 'import json, sys; r = json.load(sys.stdin); print("failed" if "failed" in r else "%.3f" % r["total"])'
}
for shape in $shapes; do
  IFS=: read -r n d k order <<< "$shape"
  generate_points blobs "$n" "$d" "$work/x.npy" || continue
  if [ "${order:-}" = sorted ]; then
    python3 -c "import numpy as np; x = np.load('$work/x.npy'); np.save('$work/x.npy', x[np.argsort(x[:, 0], kind='stable')])"
  fi
  line="n=$n d=$d k=$k ${order:-shuffled}:"
  for solver in lloyd hamerly exponion; do
    line="$line $solver $(step_ms "$cli" $solver $k "$work/x.npy")"
    [ -n "${KMS_BASE_CLI:-}" ] && line="$line (base $(step_ms "$KMS_BASE_CLI" $solver $k "$work/x.npy"))"
  done
  line="$line | $(python3 "$root/bench/gpu/torch_step.py" "$work/x.npy" "$k")"
  echo "$line"
done | tee "$out/lowd.txt"
