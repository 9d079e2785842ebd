#!/usr/bin/env python3
"""Reference per-iteration times in the same run as bench_cuda_solvers: a plain
PyTorch k-means (torch.cdist + argmin + index_add_, float32, data resident) and
scikit-learn KMeans (lloyd, 16 threads, float32), on the issue's workloads with
blob data like the C++ benchmark's. Prints one line per measurement."""
import os
import sys
import time

import numpy as np

WORKLOADS = [("10Mx2_k5", 10_000_000, 2, 5), ("50Mx4_k4", 50_000_000, 4, 4),
             ("500kx200_k128", 500_000, 200, 128), ("1Mx2_k1000", 1_000_000, 2, 1000)]
SKLEARN_ITERATIONS = 5


def blobs(n, d, k, seed=2026):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 100, size=(k, d)).astype(np.float32)
    x = centres[np.arange(n) % k] + rng.normal(0, 4, size=(n, d)).astype(np.float32)
    return x


def torch_times(x_np, k, repeats=20):
    import torch
    x = torch.from_numpy(x_np).cuda()
    c0 = x[torch.arange(k, device="cuda") * 7919 % x.shape[0]].clone()

    def iteration(c):
        labels = torch.cdist(x, c).argmin(dim=1)
        sums = torch.zeros_like(c).index_add_(0, labels, x)
        counts = torch.bincount(labels, minlength=k).clamp_min(1).unsqueeze(1).to(x.dtype)
        return sums / counts

    c = c0
    for _ in range(3):
        c = iteration(c)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        c = iteration(c)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    del x
    torch.cuda.empty_cache()
    return float(np.median(times))


def sklearn_time(x, k):
    """Per-iteration time: one fit of SKLEARN_ITERATIONS iterations (tol=0, n_init=1, fixed
    initial centroids) divided by the iterations it ran (it may stop earlier when its labels
    settle). Includes scikit-learn's input checks and final labelling, so it is a few per cent
    pessimistic; never the difference of two fits, which went negative when the longer fit
    converged early (50Mx4_k4 printed -243.9 ms)."""
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits
    c0 = x[(np.arange(k) * 7919) % x.shape[0]].copy()
    with threadpool_limits(16):
        model = KMeans(n_clusters=k, init=c0, n_init=1, max_iter=SKLEARN_ITERATIONS, tol=0.0, algorithm="lloyd")
        start = time.perf_counter()
        model.fit(x)
        elapsed = time.perf_counter() - start
    return elapsed * 1e3 / model.n_iter_, model.n_iter_


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else None
    for name, n, d, k in WORKLOADS:
        if only and name != only:
            continue
        x = blobs(n, d, k)
        try:
            print(f"reference {name} torch_plain_ms {torch_times(x, k):.4f}", flush=True)
        except Exception as error:  # report and go on: the C++ numbers stand alone
            print(f"reference {name} torch failed: {error}", flush=True)
        try:
            ms, iterations = sklearn_time(x, k)
            print(f"reference {name} sklearn16_ms {ms:.3f} (fit time / {iterations} iterations)", flush=True)
        except Exception as error:
            print(f"reference {name} sklearn failed: {error}", flush=True)


if __name__ == "__main__":
    main()
