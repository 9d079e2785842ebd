"""Per-iteration time of weighted vs unweighted CUDA fits from Python, on a PyTorch
CUDA tensor read in place: n x d blobs, k clusters, fixed iterations (tol = 0,
the same initial centres), median of the iterations after the first.
Usage: python3 bench/gpu/weighted_vs_unweighted.py [n] [d] [k] [iterations]"""
import sys
import time

import numpy as np
import torch

from kmeans_studio import KMeans

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
d = int(sys.argv[2]) if len(sys.argv) > 2 else 2
k = int(sys.argv[3]) if len(sys.argv) > 3 else 100
iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 12

gen = torch.Generator(device="cuda").manual_seed(1)
centres = torch.rand(k, d, device="cuda", dtype=torch.float64, generator=gen) * 100
X64 = (centres[torch.randint(0, k, (n,), device="cuda", generator=gen)] +
       torch.randn(n, d, device="cuda", dtype=torch.float64, generator=gen)).contiguous()
w = np.random.default_rng(2).uniform(0, 2, n)
init = X64[:k].cpu().numpy()
print(f"n = {n}, d = {d}, k = {k}, {iterations} iterations, device {torch.cuda.get_device_name()}")
print(f"{'solver':8} {'prec':4} {'unweighted ms/it':>17} {'weighted ms/it':>15} {'ratio':>6} {'fit s (w)':>9}")
for precision, X in (("f64", X64), ("f32", X64.float().contiguous())):
    for solver in ("lloyd", "elkan", "hamerly"):
        row = []
        for weights in (None, w):
            km = KMeans(k, solver=solver, backend="cuda", init=init.astype(np.float32 if X.dtype == torch.float32 else np.float64),
                        max_iter=iterations, tol=0)
            start = time.perf_counter()
            km.fit(X, sample_weight=weights)
            elapsed = time.perf_counter() - start
            assert km._data_address_ == X.data_ptr()
            times = [h["time_total_ms"] for h in km.history_][1:]
            row.append((float(np.median(times)), elapsed))
        print(f"{solver:8} {precision:4} {row[0][0]:17.3f} {row[1][0]:15.3f} {row[1][0] / row[0][0]:6.2f} {row[1][1]:9.2f}")
