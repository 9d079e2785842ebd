#!/usr/bin/env bash
# On the CUDA machine: issue 14's low-d, large-k shapes — our CUDA solvers (f32, --variant
# auto) per step against PyTorch's best simple form on the same points, in one run, with
# the floors. Also the same 10^7 × 2-D points sorted by their first coordinate (labels in
# long runs: the package update's worst order). KMS_BASE_CLI: a baseline build's CLI, run
# on the same data beside ours. Unpacks .devcarry-gpu/pack.tar.xz (scripts/device_pack.sh).
# Usage: OUT=DIR scripts/device_lowd.sh   → DIR/lowd.txt
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
shapes=${KMS_LOWD_SHAPES:-"1000000:2:100 1000000:2:1000 1000000:4:1000 1000000:1:100 10000000:2:100 10000000:2:100:sorted"}
record_device
step_ms() {  # CLI SOLVER K FILE → median time_total_ms of steps 3..12
  "$1" run --input "$4" --k "$3" --solver "$2" --backend cuda --precision f32 --init random --seed 3 \
           --max-iter 12 --tol 0 --report json 2>/dev/null | python3 -c '
import json, statistics, sys
its = [json.loads(l) for l in sys.stdin if l.startswith("{")]
its = [r for r in its if r.get("type") == "iteration"][2:]
print("%.3f" % statistics.median(r["time_total_ms"] for r in its) if its else "failed")'
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
  line="$line | $(python3 - "$work/x.npy" "$k" <<'EOF'
import sys, statistics
import numpy as np, torch
x = torch.from_numpy(np.load(sys.argv[1])).cuda()
n, d = x.shape
k = int(sys.argv[2])
c0 = x[torch.randperm(n, generator=torch.Generator().manual_seed(3))[:k].cuda()].clone()
def update(x, labels, c):
    sums = torch.zeros_like(c).index_add_(0, labels, x)
    counts = torch.bincount(labels, minlength=c.shape[0]).to(c.dtype).unsqueeze(1)
    return torch.where(counts > 0, sums / counts.clamp_min(1), c)
def step_cdist(x, c): return update(x, torch.cdist(x, c).argmin(dim=1), c)
def step_matmul(x, c): return update(x, ((c * c).sum(1)[None, :] - 2.0 * (x @ c.T)).argmin(dim=1), c)
forms = {"cdist": step_cdist, "matmul": step_matmul, "compile-matmul": torch.compile(step_matmul, dynamic=True)}
done = {}
for name, step in forms.items():
    try:
        c = c0.clone()
        for _ in range(3): c = step(x, c)
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); c = step(x, c); b.record(); b.synchronize()
            times.append(a.elapsed_time(b))
        done[name] = statistics.median(times)
    except Exception as e:
        torch.cuda.empty_cache()
best = min(done, key=done.get)
fp32 = 2 * n * k * d / 65.2e12 * 1e3
memory = n * (d + 1) * 4 / 3014e9 * 1e3
print(f"torch best {best} {done[best]:.3f} (" + ", ".join(f"{m} {v:.3f}" for m, v in done.items()) +
      f") | floor {max(fp32, memory):.4f} ms (FP32 {fp32:.4f}, memory {memory:.4f})")
EOF
)"
  echo "$line"
done | tee "$out/lowd.txt"
