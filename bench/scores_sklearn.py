#!/usr/bin/env python3
"""Time scikit-learn's silhouette_score on the data bench_scores wrote.

usage: scores_sklearn.py PREFIX N D [REPEATS] [DEVICE]
PREFIX.x: N*D float64 raw, PREFIX.labels: N int32 raw (bench_scores --data-out PREFIX).
Prints one JSON line like bench_scores: median seconds and the score.
"""
import json
import os
import platform
import sys
import time

import numpy as np
import sklearn
from sklearn.metrics import silhouette_score


def main():
    prefix, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    device = sys.argv[5] if len(sys.argv) > 5 else platform.processor() or platform.machine()
    X = np.fromfile(prefix + ".x", dtype="<f8").reshape(n, d)
    labels = np.fromfile(prefix + ".labels", dtype="<i4")
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        score = silhouette_score(X, labels)
        runs.append(time.perf_counter() - start)
    print(json.dumps({
        "what": "sklearn silhouette_score f64 (sklearn %s, numpy %s)" % (sklearn.__version__, np.__version__),
        "device": device, "n": n, "d": d, "cpus": os.cpu_count(),
        "median_s": float(np.median(runs)), "runs_s": runs, "silhouette": float(score),
    }))


if __name__ == "__main__":
    main()
