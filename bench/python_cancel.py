#!/usr/bin/env python3
"""Ctrl-C latency of kmeans_studio's long calls (issue 40): SIGINT to KeyboardInterrupt.

For each call a child process makes its data, says "go", starts the call; this process
sends SIGINT `--delay` seconds later (inside the phase named), and the child reports the
moment KeyboardInterrupt reached Python (time.monotonic is CLOCK_MONOTONIC, shared by
the two processes) and then runs a small fit to show the process is still usable.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_cancel.py [--repeat 3] [--only predict,...]

Prints one line per call: the calls' uninterrupted time, then min/median/max latency in ms.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
import numpy as np
import kmeans_studio
from kmeans_studio import KMeans
case, n_threads = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)

def big(n, d):
    return rng.normal(size=(n, d))

def sparse_rows(n, d, per_row):  # CSR with per_row distinct sorted columns a row, values uniform
    import scipy.sparse as sp
    stride = d // per_row
    cols = rng.integers(0, stride, size=(n, 1)) + stride * np.arange(per_row)[None, :]
    return sp.csr_matrix((rng.uniform(size=n * per_row), cols.ravel().astype(np.int32),
                          np.arange(0, n * per_row + 1, per_row, dtype=np.int64)), shape=(n, d))

if case == "loading":          # fit's checks and the tolerance's variance before the seeding, 4e7 x 2
    X = big(40_000_000, 2); call = lambda: KMeans(2, init=X[:2].copy(), n_threads=n_threads).fit(X)
elif case == "seeding":        # k-means++ of 10^7 x 2, k = 200 (the issue's case)
    X = big(10_000_000, 2); call = lambda: KMeans(200, max_iter=1, random_state=0, n_threads=n_threads).fit(X)
elif case == "seeding-late":   # the same, SIGINT 3 s in (after the first rounds)
    X = big(10_000_000, 2); call = lambda: KMeans(200, max_iter=1, random_state=0, n_threads=n_threads).fit(X)
elif case == "seeding-bounded":  # k >= 500: the seeding keeps bounds (--init-bounds auto), 10^7 x 2, k = 600
    X = big(10_000_000, 2); call = lambda: KMeans(600, max_iter=1, random_state=0, n_threads=n_threads).fit(X)
elif case == "greedy-bounded":  # greedy k-means++ with bounds (k >= 500): the candidates' potentials, 10^7 x 2, k = 600
    X = big(10_000_000, 2); call = lambda: KMeans(600, init="greedy-k-means++", max_iter=1, random_state=0, n_threads=n_threads).fit(X)
elif case == "seeding-parallel":  # k-means|| (its rounds keep bounds), 10^7 x 2, k = 600
    X = big(10_000_000, 2); call = lambda: KMeans(600, init="k-means||", max_iter=1, random_state=0, n_threads=n_threads).fit(X)
elif case == "greedy-seeding": # scikit-learn's k-means++ with local trials
    X = big(10_000_000, 2); call = lambda: KMeans(200, init="greedy-k-means++", max_iter=1, random_state=0, n_threads=n_threads).fit(X)
elif case == "transform":      # 3e5 x 50, k = 300 (the output, n x k, fits in memory)
    X = big(300_000, 50)
    km = KMeans(300, init="random", max_iter=1, random_state=0, n_threads=n_threads).fit(X[:20000])
    call = lambda: km.transform(X)
elif case in ("predict", "score"):  # 10^7 x 2, k = 1000 (the issue's predict case)
    X = big(10_000_000, 2)
    km = KMeans(1000, init=rng.normal(size=(1000, 2)), max_iter=1, n_threads=n_threads).fit(X[:20000])
    call = {"predict": lambda: km.predict(X), "score": lambda: km.score(X)}[case]
elif case == "iterations":     # the step loop
    X = big(2_000_000, 8); call = lambda: KMeans(300, init="random", tol=0, max_iter=10_000, random_state=0, n_threads=n_threads).fit(X)
elif case == "sparse-fit":     # Lloyd over sparse rows
    X = sparse_rows(1_000_000, 1000, 5)
    call = lambda: KMeans(200, init="random", tol=0, max_iter=10_000, random_state=0, n_threads=n_threads).fit(X)
elif case == "sparse-predict":
    X = sparse_rows(2_000_000, 1000, 5)
    km = KMeans(1000, init="random", max_iter=1, random_state=0).fit(X[:5000])
    call = lambda: km.predict(X)
elif case == "sweep":
    X = big(1_000_000, 2); call = lambda: kmeans_studio.sweep(X, (2, 40), random_state=0, scores="exact", n_threads=n_threads)
elif case == "spectral":
    X = big(1_000_000, 2); call = lambda: kmeans_studio.SpectralClustering(4, n_representatives=3000, random_state=0, n_threads=n_threads).fit(X)
else:
    raise SystemExit("unknown case " + case)
if len(sys.argv) > 3:          # time the call uninterrupted
    t = time.monotonic(); call(); print(json.dumps({"full_s": time.monotonic() - t}), flush=True); raise SystemExit
print("go", flush=True)
start = time.monotonic()
try:
    call()
    print(json.dumps({"finished_s": time.monotonic() - start}), flush=True)
except KeyboardInterrupt:
    caught = time.monotonic()
    ok = KMeans(3, random_state=0).fit(rng.normal(size=(1000, 2))).n_iter_ > 0
    print(json.dumps({"caught": caught, "usable": ok}), flush=True)
"""

DELAYS = {"loading": 0.05, "seeding": 0.3, "seeding-late": 3.0, "seeding-bounded": 3.0, "greedy-bounded": 3.0, "seeding-parallel": 2.0, "greedy-seeding": 0.3, "predict": 0.5, "score": 0.5, "transform": 0.5,
          "iterations": 1.0, "sparse-fit": 1.0, "sparse-predict": 0.5, "sweep": 1.0, "spectral": 1.0}


def one(case, delay, threads):
    child = subprocess.Popen([sys.executable, "-c", CHILD, case, str(threads)], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "go"
    time.sleep(delay)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out = json.loads(child.stdout.readline())
    child.wait()
    if "caught" not in out:
        return None, out
    return (out["caught"] - sent) * 1000.0, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", default=",".join(DELAYS))
    parser.add_argument("--full", action="store_true", help="also time each call uninterrupted")
    options = parser.parse_args()
    print(f"# {os.cpu_count()} CPUs, {options.threads} OpenMP threads; SIGINT to KeyboardInterrupt, ms", flush=True)
    for case in options.only.split(","):
        full = ""
        if options.full:
            run = subprocess.run([sys.executable, "-c", CHILD, case, str(options.threads), "full"], capture_output=True,
                                 text=True, check=True)
            full = f" (uninterrupted {json.loads(run.stdout.splitlines()[-1])['full_s']:.2f} s)"
        latencies, usable = [], True
        for _ in range(options.repeat):
            latency, out = one(case, DELAYS[case], options.threads)
            if latency is None:
                print(f"{case:16s} finished before the signal: {out}")
                break
            latencies.append(latency)
            usable &= out["usable"]
        if latencies:
            print(f"{case:16s} SIGINT at {DELAYS[case]:.2f} s: min {min(latencies):6.1f}  median "
                  f"{statistics.median(latencies):6.1f}  max {max(latencies):6.1f} ms; usable after: {usable}{full}",
                  flush=True)


if __name__ == "__main__":
    main()
