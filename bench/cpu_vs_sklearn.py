#!/usr/bin/env python3
"""Per-iteration time of our CPU solvers against scikit-learn, same data, same
initial centroids, same thread count.

usage: bench/cpu_vs_sklearn.py [--cli build/app/kmeans-cli] [--n 1000000] [--d 2] [--k 100]
                               [--threads 2] [--iterations 20] [--repeats 3] [--out docs/cpu-benchmark.md]

--grid (issue 37, d >= 16): Lloyd per step over a grid of shapes, ours with the
certified GEMM (--gemm-filter on) and without it (the exact kernel), scikit-learn's
Lloyd and FAISS's k-means (python3-faiss, float32, not exact), the floor 2·n·k·d /
(this machine's measured GEMM rate: NumPy's OpenBLAS at the same thread count):
  bench/cpu_vs_sklearn.py --grid --n 100000 --grid-d 16,64,128 --grid-k 100,1000 --threads 2 --iterations 5
--baseline-cli OTHER (with --grid): another build's GEMM step in the same interleaved
repeats, in place of the exact kernel's (an A/B of two builds on one machine).

Needs python3 with numpy, scikit-learn and threadpoolctl (Debian: python3-sklearn).
Our time per iteration is the median over the iterations of every run of the
step time kmeans-cli reports (time_total_ms), median over repeats; scikit-learn's
is fit() time / n_iter_ (it includes one extra labelling pass and the inertia),
median over repeats. Both run tol=0 for a fixed number of iterations.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "suites"))
from harness import cpu_name  # noqa: E402  (the one machine description of every benchmark)


def registered_solvers(cli):
    """The engine's solvers, from `run --help` (its --solver line lists the registered ones)."""
    text = subprocess.run([cli, "run", "--help"], check=True, capture_output=True, text=True).stdout
    line = next(l for l in text.splitlines() if l.strip().startswith("--solver "))
    return [name.strip() for name in line.split("NAME", 1)[1].split("(", 1)[0].split("|")]


def run_ours(cli, data, init, k, solver, precision, backend, threads, iterations, extra=()):
    cmd = [cli, "run", "--input", data, "--k", str(k), "--init", init, "--solver", solver,
           "--precision", precision, "--backend", backend, "--threads", str(threads),
           "--max-iter", str(iterations), "--tol", "0", "--report", "json", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    steps = [r for r in records if r["type"] == "iteration"]
    summary = records[-1]
    return steps, summary


def gemm_rate(threads, d, dtype):
    """FLOP/s of NumPy's GEMM (OpenBLAS on Debian) on a 20000 x d by d x 1000 product."""
    from threadpoolctl import threadpool_limits
    rng = np.random.default_rng(0)
    a = rng.random((20000, d)).astype(dtype)
    b = rng.random((d, 1000)).astype(dtype)
    with threadpool_limits(limits=threads):
        a @ b
        best = min(_timed(lambda: a @ b) for _ in range(5))
    return 2.0 * 20000 * 1000 * d / best


def _timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def grid(args):
    """Lloyd per step: ours (certified GEMM and exact kernel), scikit-learn, FAISS, floor."""
    from sklearn import __version__ as sklearn_version
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits
    try:
        import faiss
        faiss.omp_set_num_threads(args.threads)
    except ImportError:
        faiss = None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in [int(v) for v in args.grid_d.split(",")]:
            for k in [int(v) for v in args.grid_k.split(",")]:
                data_path = os.path.join(tmp, "data.npy")
                init_path = os.path.join(tmp, "init.csv")
                subprocess.run([args.cli, "generate", "--generate", f"blobs:n={args.n},k={k},d={d}", "--seed",
                                str(args.seed), "--out", data_path, "--format", "npy"], check=True,
                               capture_output=True)
                X = np.load(data_path).astype(np.float64)
                C0 = X[np.random.default_rng(args.seed).choice(X.shape[0], k, replace=False)]
                np.savetxt(init_path, C0, delimiter=",", fmt="%.17g")
                for precision, dtype in (("f32", np.float32), ("f64", np.float64)):
                    if precision not in args.grid_precision.split(","):
                        continue
                    cell = {"d": d, "k": k, "precision": precision}
                    # Every implementation once per repeat, interleaved; the least of the repeats
                    # (on a shared machine other work only ever adds time).
                    Xp, Cp = X.astype(dtype), C0.astype(dtype)
                    times = {"ours_off": [], "ours_on": [], "sklearn": [], "faiss": [], "assign": [], "update": []}
                    # ours_off: the exact kernel, or (--baseline-cli) the other build's GEMM step.
                    runs = (((args.baseline_cli, "off", "on"), (args.cli, "on", "on")) if args.baseline_cli
                            else ((args.cli, "off", "off"), (args.cli, "on", "on")))
                    for _ in range(args.repeats):
                        for cli, name, gemm in runs:
                            steps, _ = run_ours(cli, data_path, init_path, k, "lloyd", precision, "omp",
                                                args.threads, args.iterations, ["--gemm-filter", gemm])
                            times[f"ours_{name}"].append(statistics.median(s["time_total_ms"] for s in steps))
                            if name == "on":
                                cell["certified"] = sum(s["gemm_certified"] for s in steps) / (len(steps) * args.n)
                                times["assign"].append(statistics.median(s["time_assign_ms"] for s in steps))
                                times["update"].append(statistics.median(s["time_update_ms"] for s in steps))
                        with threadpool_limits(limits=args.threads):
                            km = KMeans(n_clusters=k, init=Cp, n_init=1, max_iter=args.iterations, tol=0,
                                        algorithm="lloyd")
                            elapsed = _timed(lambda: km.fit(Xp))
                        times["sklearn"].append(1000.0 * elapsed / km.n_iter_)
                        if faiss is not None and precision == "f32":
                            km = faiss.Kmeans(d, k, niter=args.iterations, verbose=False, seed=args.seed,
                                              max_points_per_centroid=args.n, min_points_per_centroid=1)
                            elapsed = _timed(lambda: km.train(Xp, init_centroids=Cp))
                            times["faiss"].append(1000.0 * elapsed / args.iterations)
                    for name, values in times.items():
                        if values:
                            cell[name] = min(values)
                    cell["floor"] = 1000.0 * 2.0 * args.n * k * d / gemm_rate(args.threads, d, dtype)
                    rows.append(cell)
                    print(cell, file=sys.stderr)
    faiss_version = faiss.__version__ if faiss is not None else "absent"
    first = "baseline build's GEMM" if args.baseline_cli else "ours exact kernel"
    speedup_name = "speed-up over baseline" if args.baseline_cli else "GEMM speed-up"
    lines = [
        f"Machine: {cpu_name()}, {os.cpu_count()} cores visible, {args.threads} threads used; "
        f"{datetime.date.today().isoformat()}. n = {args.n}, `blobs:n={args.n},k=K,d=D` seed {args.seed}, "
        f"the same K initial centroids for everyone, tol = 0, {args.iterations} iterations; ms per Lloyd step: "
        f"ours the median step of a run, scikit-learn's and FAISS's fit time / iterations; the least of "
        f"{args.repeats} interleaved runs. scikit-learn {sklearn_version} (Lloyd, same precision), "
        f"FAISS {faiss_version} (float32 only; its distances are a plain GEMM: not exact). Floor: 2·n·k·d "
        f"flops at NumPy's measured GEMM rate (OpenBLAS, same threads; that product also writes the n x k "
        f"matrix, which our fused kernel does not, so it is a reference rate, not a bound).",
        "",
        f"| d | k | precision | {first} | ours certified GEMM | assign / update | certified | {speedup_name} | "
        "scikit-learn | vs scikit-learn | FAISS | floor | GEMM / floor |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        faiss_cell = f"{r['faiss']:.1f}" if "faiss" in r else ""
        # Below the GEMM's threshold (d·k < 4096) both runs are the exact kernel: their ratio is noise.
        speedup = f"{r['ours_off'] / r['ours_on']:.2f}x" if r["certified"] > 0 or args.baseline_cli else "not used"
        lines.append(f"| {r['d']} | {r['k']} | {r['precision']} | {r['ours_off']:.1f} | {r['ours_on']:.1f} | "
                     f"{r['assign']:.1f} / {r['update']:.1f} | {100 * r['certified']:.1f} % | {speedup} | {r['sklearn']:.1f} | "
                     f"{r['sklearn'] / r['ours_on']:.2f}x | {faiss_cell} | {r['floor']:.1f} | "
                     f"{r['ours_on'] / r['floor']:.2f}x |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n" + table + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default="build/app/kmeans-cli")
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--d", type=int, default=2)
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", default="")
    p.add_argument("--grid", action="store_true", help="Lloyd per step over --grid-d x --grid-k (appends to --out)")
    p.add_argument("--grid-d", default="16,64,128")
    p.add_argument("--grid-k", default="100,1000")
    p.add_argument("--grid-precision", default="f32,f64")
    p.add_argument("--baseline-cli", default="", help="with --grid: another build's GEMM step in place of the exact kernel")
    args = p.parse_args()
    if args.grid:
        grid(args)
        return

    from sklearn import __version__ as sklearn_version
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "data.npy")
        init_path = os.path.join(tmp, "init.csv")
        # Data from our own generator, so anyone can regenerate it.
        subprocess.run([args.cli, "generate", "--generate",
                        f"blobs:n={args.n},k={args.k},d={args.d}", "--seed", str(args.seed),
                        "--out", data_path, "--format", "npy"], check=True, capture_output=True)
        X = np.load(data_path).astype(np.float64)
        rng = np.random.default_rng(args.seed)
        C0 = X[rng.choice(X.shape[0], args.k, replace=False)]
        np.savetxt(init_path, C0, delimiter=",", fmt="%.17g")

        rows = []
        for solver in registered_solvers(args.cli):
            for precision in ("f64", "f32"):
                per_repeat, work = [], []
                for _ in range(args.repeats):
                    steps, summary = run_ours(args.cli, data_path, init_path, args.k, solver, precision,
                                              "omp", args.threads, args.iterations)
                    per_repeat.append(statistics.median(s["time_total_ms"] for s in steps))
                    work.append(sum(s["point_centroid_distances"] for s in steps) /
                                (len(steps) * args.n * args.k))
                    skips = sum(s["bound_skips"] for s in steps[1:]) / max(1, (len(steps) - 1) * args.n)
                rows.append({"who": "kmeans-studio", "solver": solver, "precision": precision,
                             "ms": statistics.median(per_repeat), "iterations": summary["iterations"],
                             "work": statistics.mean(work), "skips": skips})
                print(rows[-1], file=sys.stderr)

        for algorithm in ("lloyd", "elkan"):
            times, n_iter = [], 0
            for _ in range(args.repeats):
                with threadpool_limits(limits=args.threads):
                    km = KMeans(n_clusters=args.k, init=C0, n_init=1, max_iter=args.iterations, tol=0,
                                algorithm=algorithm)
                    start = time.perf_counter()
                    km.fit(X)
                    elapsed = time.perf_counter() - start
                times.append(1000.0 * elapsed / km.n_iter_)
                n_iter = km.n_iter_
            rows.append({"who": f"scikit-learn {sklearn_version}", "solver": algorithm, "precision": "f64",
                         "ms": statistics.median(times), "iterations": n_iter, "work": None, "skips": None})
            print(rows[-1], file=sys.stderr)

    sk_lloyd = next(r["ms"] for r in rows if r["who"].startswith("scikit") and r["solver"] == "lloyd")
    lines = [
        f"Machine: {cpu_name()}, {os.cpu_count()} cores visible, {args.threads} threads used; "
        f"{datetime.date.today().isoformat()}.",
        f"Data: `blobs:n={args.n},k={args.k},d={args.d}` seed {args.seed} (our generator), k = {args.k}, "
        f"the same {args.k} initial centroids (random rows, numpy seed {args.seed}) for everyone; "
        f"tol = 0, {args.iterations} iterations; median of {args.repeats} runs.",
        "",
        "| implementation | solver | precision | ms / iteration | vs scikit-learn Lloyd | "
        "distance evaluations (share of Lloyd's) | points skipped by bounds (iterations 2+) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        work = "" if r["work"] is None else f"{100 * r['work']:.1f} %"
        skips = "" if r["skips"] is None else f"{100 * r['skips']:.1f} %"
        lines.append(f"| {r['who']} | {r['solver']} | {r['precision']} | {r['ms']:.1f} | "
                     f"{sk_lloyd / r['ms']:.2f}x | {work} | {skips} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write("# CPU solvers against scikit-learn\n\n")
            f.write("Reproduce: `python3 bench/cpu_vs_sklearn.py --cli build/app/kmeans-cli "
                    f"--threads {args.threads} --out {args.out}` (Debian's python3-sklearn).\n\n")
            f.write(table + "\n")


if __name__ == "__main__":
    main()
