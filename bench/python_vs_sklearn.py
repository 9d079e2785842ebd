#!/usr/bin/env python3
"""kmeans_studio.KMeans against sklearn.cluster.KMeans from Python: the same data,
the same initial centroids, the same thread count, fixed iterations (tol=0).

usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_sklearn.py
           [--n 200000] [--d 8] [--k 32] [--iterations 20] [--threads 2] [--repeats 3]
           [--weights] [--out docs/python-benchmark.md]

Time per fit is the wall time of fit() from Python (checks, conversion, the
engine's initial labelling, every step, the final relabel), median over repeats;
time per iteration is that divided by n_iter_. Both libraries reach the same
labels (checked) from the same init. threadpoolctl limits scikit-learn's
threads; ours take n_threads. Writes a Markdown table (atomically) with --out.
"""
import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "suites"))
from harness import cpu_name  # noqa: E402  (the one machine description of every benchmark)


def timed(fit, repeats):
    times, model = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - start)
    return statistics.median(times), model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=8)
    parser.add_argument("--k", type=int, default=32)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--weights", action="store_true", help="random sample weights in [0, 2)")
    parser.add_argument("--out", help="write the table here (Markdown)")
    args = parser.parse_args()

    from sklearn.cluster import KMeans as SKKMeans
    from threadpoolctl import threadpool_limits

    import kmeans_studio

    rng = np.random.default_rng(0)
    means = rng.uniform(-10, 10, size=(args.k, args.d))
    X = means[rng.integers(0, args.k, args.n)] + 2.0 * rng.normal(size=(args.n, args.d))
    w = rng.uniform(0, 2, args.n) if args.weights else None
    C0 = np.ascontiguousarray(X[rng.choice(args.n, args.k, replace=False)])
    rows = []
    with threadpool_limits(limits=args.threads):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for algorithm in ("lloyd", "elkan"):
                t, sk = timed(lambda: SKKMeans(args.k, init=C0, n_init=1, tol=0, max_iter=args.iterations,
                                               algorithm=algorithm).fit(X, sample_weight=w), args.repeats)
                rows.append((f"scikit-learn {algorithm}", t, sk.n_iter_, sk.labels_))
    for solver in ("lloyd", "elkan", "hamerly"):
        for precision in ("f64", "f32"):
            t, km = timed(lambda: kmeans_studio.KMeans(args.k, solver=solver, init=C0, tol=0, max_iter=args.iterations,
                                                       n_threads=args.threads, precision=precision)
                          .fit(X, sample_weight=w), args.repeats)
            rows.append((f"kmeans_studio {solver} {precision}", t, km.n_iter_, km.labels_))
    reference = rows[0][3]
    lines = [f"n = {args.n}, d = {args.d}, k = {args.k}, {args.iterations} iterations (tol = 0), "
             f"{args.threads} threads, {'weighted' if args.weights else 'unweighted'}, median of {args.repeats}; "
             f"{cpu_name()}, {os.cpu_count()} logical CPUs, {datetime.date.today()}", "",
             "| implementation | time per fit (ms) | iterations | time per iteration (ms) | labels equal to scikit-learn lloyd |",
             "|---|---:|---:|---:|---:|"]
    for name, t, iterations, labels in rows:
        lines.append(f"| {name} | {t * 1000:.1f} | {iterations} | {t * 1000 / iterations:.2f} | "
                     f"{np.mean(labels == reference) * 100:.2f} % |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        folder = os.path.dirname(os.path.abspath(args.out))
        with tempfile.NamedTemporaryFile("w", dir=folder, delete=False) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(f.name, args.out)


if __name__ == "__main__":
    sys.exit(main())
