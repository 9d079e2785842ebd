#!/usr/bin/env python3
"""The seeds' studies as benchmark suites: scripts/bench.sh SUITE [--quick] [--out DIR]
[--device-only|--cpu-only]. Suites: thesis, he, zechner, pisa, map, seeding, highd, solvers (docs/benchmarks.md)."""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Harness, median, table  # noqa: E402


class TimeLimit(Exception):
    pass


def thread_counts(cores, quick):
    counts, t = [], 1
    while t < cores:
        counts.append(t)
        t *= 2
    counts.append(cores)
    return [1, cores] if quick else sorted(set(counts))


def peer_for_cpu(h, data, c0, threads, precision, iterations, cache):
    """Best of scikit-learn's lloyd and elkan at this thread count (cached per data, start and threads)."""
    key = (data, c0.tobytes(), threads, precision)
    if key not in cache:
        dtype = np.float32 if precision == "f32" else np.float64
        best = (None, "scikit-learn absent")
        for algorithm in ("lloyd", "elkan"):
            ms, what = h.sklearn_ms(data, c0, algorithm, threads, iterations, dtype)
            if ms is not None and (best[0] is None or ms < best[0]):
                best = (ms, what)
        cache[key] = best
    return cache[key]


# ---- thesis -----------------------------------------------------------------------------------

def suite_thesis(h, args):
    n, k = (100_000, 20) if h.quick else (1_000_000, 100)
    spec = f"blobs:n={n},k={k},d=2"
    data = h.dataset(spec)
    init, c0 = h.initial_centroids(data, k, method="kmeans++")
    rows = []
    sk_cache = {}
    if h.cpu:
        for solver in ("lloyd", "elkan", "hamerly"):
            for precision in ("f32", "f64"):
                for backend, threads in [("seq", 1)] + [("omp", t) for t in thread_counts(h.cores, h.quick)]:
                    m = h.measure_ours(data, init, k, solver=solver, backend=backend, precision=precision,
                                       threads=threads, iterations=300, tol=1e-4)
                    peer_ms, peer = (None, "")
                    if solver == "lloyd" or not h.quick:
                        key = (threads, precision)
                        if key not in sk_cache:
                            dtype = np.float32 if precision == "f32" else np.float64
                            sk_cache[key] = h.sklearn_ms(data, c0, "lloyd", threads, 10 if h.quick else 20, dtype)
                        peer_ms, peer = sk_cache[key]
                    rows.append(h.add(spec, solver, backend, precision, threads, 0, m, peer, peer_ms))
    if h.gpu and h.has_cuda:
        for solver in ("lloyd", "elkan", "hamerly"):
            for precision in ("f32", "f64"):
                for variant in ("cuda-global", "cuda-shared"):
                    for block in ((256,) if h.quick else (64, 256, 1024)):
                        m = h.measure_ours(data, init, k, solver=solver, backend=variant, precision=precision,
                                           block_size=block, iterations=300, tol=1e-4)
                        peer_ms, peer = h.torch_ms(data, c0, precision)
                        rows.append(h.add(spec, solver, variant, precision, "", block, m, peer, peer_ms))
    # scikit-learn to convergence, same initial centroids, all cores.
    sk_rows = []
    for algorithm in ("lloyd", "elkan"):
        seconds, model = h.sklearn_converge_s(data, c0, algorithm, h.cores)
        if seconds is not None:
            sk_rows.append({"implementation": f"scikit-learn {algorithm} f64, {h.cores} threads",
                            "iterations": model.n_iter_, "seconds": seconds})
    sections = [("Time to convergence and per iteration (tol 1e-4, k-means++ start)",
                 f"Data `{spec}` (our generator, seed 7); the same k-means++ initial centroids for everyone.\n\n" +
                 table(rows, ["solver", "backend", "precision", "threads", "block_size", "iterations",
                              "time_to_converge_s", "ms_per_iter_median", "first_iter_ms", "skip_rate", "x_floor",
                              "peer_ms_per_iter", "x_peer"]) +
                 "\n\nscikit-learn to convergence on the same start:\n\n" +
                 table(sk_rows, ["implementation", "iterations", "seconds"]))]
    init_section = init_study(h)
    sections.append(("Initialisation: random vs k-means++", init_section))
    h.write("thesis: solvers x back ends x precisions, and the initialisation study", sections)


def init_study(h):
    pairs = [(100, 1000), (200, 2000)] if h.quick else [(100, 1000), (200, 2000), (300, 3000), (400, 4000),
                                                         (500, 5000)]
    seeds = range(3) if h.quick else range(10)
    scores = {}
    for k, n in pairs:
        spec = f"blobs:n={n},k={k},d=2"
        data = h.dataset(spec, seed=11)
        for method in ("random", "kmeans++"):
            for seed in seeds:
                labels = os.path.join(h.tmp, "labels.txt")
                subprocess.run([h.cli, "run", "--input", data, "--k", str(k), "--init", method, "--seed", str(seed),
                                "--backend", "omp", "--labels-out", labels], check=True, capture_output=True)
                out = subprocess.run([h.cli, "score", "--input", data, "--labels", labels, "--report", "json"],
                                     check=True, capture_output=True, text=True).stdout
                s = json.loads(out.strip().splitlines()[-1])
                scores.setdefault((k, n, method), []).append(s)
    lines = ["| k | n | init | silhouette (median, min..max) | Calinski-Harabasz | Davies-Bouldin |", "|---|---|---|---|---|---|"]
    for (k, n, method), runs in scores.items():
        cells = []
        for key in ("silhouette", "calinski_harabasz", "davies_bouldin"):
            values = [r[key] for r in runs if r.get(key) is not None]
            cells.append(f"{median(values):.4g} ({min(values):.4g}..{max(values):.4g})" if values else "n/a")
        lines.append(f"| {k} | {n} | {method} | " + " | ".join(cells) + " |")

    def draw(plt):
        fig, axes = plt.subplots(1, 3, figsize=(15, 4))
        for ax, key, name in zip(axes, ("silhouette", "calinski_harabasz", "davies_bouldin"),
                                 ("silhouette (higher is better)", "Calinski-Harabasz (higher)",
                                  "Davies-Bouldin (lower)")):
            labels, data = [], []
            for k, n in pairs:
                for method in ("random", "kmeans++"):
                    labels.append(f"{k}/{n}\n{method}")
                    data.append([r[key] for r in scores[(k, n, method)] if r.get(key) is not None])
            ax.boxplot(data, labels=labels)
            ax.set_title(name)
            ax.tick_params(axis="x", labelsize=7)
        fig.suptitle(f"random vs k-means++, {len(seeds)} seeds each (k/n, blobs with k centres)")
        return fig

    h.plot("init-study.png", draw)
    return (f"{len(seeds)} seeds per cell; data `blobs:n=N,k=K,d=2` seed 11; Lloyd to convergence (tol 1e-4); "
            "scores by `kmeans-cli score`.\n\n" + "\n".join(lines))


# ---- he ---------------------------------------------------------------------------------------

HE_CENTRES = np.array([[40, 40, 60, 60], [40, 60, 60, 40], [60, 40, 40, 60], [60, 60, 40, 40]], dtype=np.float64)


def suite_he(h, args):
    n = 500_000 if h.quick else 50_000_000
    spec = f"he4d:n={n}"
    data = h.dataset(spec)
    k, iterations = 4, 10
    init, c0 = h.initial_centroids(data, k)
    rows = []
    backends = ([("omp", h.cores)] if h.cpu else []) + ([("cuda", 0)] if h.gpu and h.has_cuda else [])
    for backend, threads in backends:
        for precision in ("f32", "f64"):
            m = h.measure_ours(data, init, k, solver="lloyd", backend=backend, precision=precision, threads=threads,
                               iterations=iterations)
            row = h.add(spec, "lloyd", backend, precision, threads or "", 0, m)
            rows.append(row)
    # Float error of the package reduction (CPU update): final centroids after the same
    # iterations, against the true centres and against the double run.
    errors = []
    if h.cpu:
        # Started next to the true centres so every run converges to the same partition.
        start = os.path.join(h.tmp, "he-start.csv")
        np.savetxt(start, HE_CENTRES + 1.0, delimiter=",", fmt="%.17g")

        def centroids(precision, packages):
            path = os.path.join(h.tmp, f"c-{precision}-{packages}.csv")
            subprocess.run([h.cli, "run", "--input", data, "--k", str(k), "--init", start, "--precision", precision,
                            "--backend", "omp", "--max-iter", str(iterations), "--tol", "0", "--packages",
                            str(packages), "--centroids-out", path], check=True, capture_output=True)
            c = np.loadtxt(path, delimiter=",", ndmin=2)
            return c[np.argsort([np.argmin(((HE_CENTRES - row) ** 2).sum(1)) for row in c])]
        exact = centroids("f64", 0)
        for packages in (1, 10, 100, 1000, 0):
            c = centroids("f32", packages)
            errors.append({"packages": packages or "default", "max_error_vs_true": float(np.abs(c - HE_CENTRES).max()),
                           "max_error_vs_f64": float(np.abs(c - exact).max())})
        errors.append({"packages": "f64 default", "max_error_vs_true": float(np.abs(exact - HE_CENTRES).max()),
                       "max_error_vs_f64": 0.0})
    body = (f"`{spec}`, k = 4, {iterations} iterations from the same random rows.\n\n" +
            table(rows, ["backend", "precision", "threads", "ms_per_iter_median", "assign_ms", "update_ms",
                         "first_iter_ms", "gbps", "x_floor"]))
    err = ("Largest coordinate error of the float centroids after the same iterations (started at the true centres "
           "+ 1). The paper (He, Vialle & "
           "Baboulin) reports 3.0 with 1 package and 7.4e-4 with 100 packages, summing floats in float. Here each "
           "sub-package of 256 points sums its deviations from the old centroid in float, and the packages' sums "
           "are kept and combined in double (core/src/solvers/cpu/cpu_solver.hpp), so the error no longer grows "
           "with the package size: the package count is a memory/parallelism choice, not an accuracy one. "
           "The error against the true centres is the sampling error of the data, the same for double.\n\n" +
           table(errors, ["packages", "max_error_vs_true", "max_error_vs_f64"]))
    h.write("he: 50M 4-D points, per-phase times and the float error of the package reduction",
            [("Per-iteration time by phase", body), ("Float error against packages", err)])


# ---- zechner ----------------------------------------------------------------------------------

def suite_zechner(h, args):
    ns = (500, 5_000, 50_000) if h.quick else (500, 5_000, 50_000, 500_000)
    ds = (2, 20) if h.quick else (2, 20, 200)
    ks = (32, 64) if h.quick else (32, 64, 128)
    rows, sk_cache = [], {}
    for n in ns:
        for d in ds:
            spec = f"uniform:n={n},d={d}"
            data = h.dataset(spec)
            for k in ks:
                init, c0 = h.initial_centroids(data, k)
                if h.cpu:
                    m = h.measure_ours(data, init, k, solver="lloyd", backend="omp", precision="f32",
                                       threads=h.cores, iterations=12)
                    peer_ms, peer = peer_for_cpu(h, data, c0, h.cores, "f32", 12, sk_cache)
                    rows.append(h.add(spec, "lloyd", "omp", "f32", h.cores, 0, m, peer, peer_ms))
                if h.gpu and h.has_cuda:
                    m = h.measure_ours(data, init, k, solver="lloyd", backend="cuda", precision="f32", iterations=12)
                    peer_ms, peer = h.torch_ms(data, c0, "f32")
                    rows.append(h.add(spec, "lloyd", "cuda", "f32", "", 0, m, peer, peer_ms))
            h.drop_data()

    def draw(plt):
        fig, axes = plt.subplots(1, 2, figsize=(12, 4))
        for backend, marker in (("omp", "o"), ("cuda", "s")):
            for d in ds:
                sel = [r for r in rows if r["backend"] == backend and r["d"] == d and r["k"] == ks[-1]]
                if sel:
                    axes[0].plot([r["n"] for r in sel], [r["gbps"] for r in sel], marker=marker,
                                 label=f"{backend} d={d} k={ks[-1]}")
                    axes[1].plot([r["n"] for r in sel], [r["gflops"] for r in sel], marker=marker,
                                 label=f"{backend} d={d} k={ks[-1]}")
        for ax, what in zip(axes, ("GB/s (model traffic)", "GFLOP/s (3 flops per coordinate)")):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("n")
            ax.set_title(what)
            ax.legend(fontsize=7)
        return fig

    h.plot("zechner.png", draw)
    h.write("zechner: GB/s and GFLOP/s over n x d x k",
            [("Lloyd f32, uniform data", table(rows, ["n", "d", "k", "backend", "ms_per_iter_median", "gbps", "gflops",
                                                      "floor_ms", "x_floor", "peer_ms_per_iter", "x_peer"]))])


# ---- pisa -------------------------------------------------------------------------------------

def suite_pisa(h, args):
    n = 1_000_000 if h.quick else 10_000_000
    spec = f"blobs:n={n},k=5,d=2"
    data = h.dataset(spec)
    k, iterations = 5, 10
    init, c0 = h.initial_centroids(data, k)
    rows, sweep = [], []
    if h.cpu:
        for backend, threads in (("seq", 1), ("omp", h.cores)):
            for precision in ("f32", "f64"):
                m = h.measure_ours(data, init, k, backend=backend, precision=precision, threads=threads,
                                   iterations=iterations)
                peer_ms, peer = h.sklearn_ms(data, c0, "lloyd", threads, iterations,
                                             np.float32 if precision == "f32" else np.float64)
                rows.append(h.add(spec, "lloyd", backend, precision, threads, 0, m, peer, peer_ms))
        for bind in ("none", "compact", "spread"):
            for threads in thread_counts(h.cores, h.quick):
                m = h.measure_ours(data, init, k, backend="omp", precision="f32", threads=threads,
                                   iterations=iterations, extra=("--bind", bind))
                sweep.append(h.add(spec, "lloyd", "omp", "f32", threads, 0, m, bind=bind))
    if h.gpu and h.has_cuda:
        for precision in ("f32", "f64"):
            m = h.measure_ours(data, init, k, backend="cuda", precision=precision, iterations=iterations)
            peer_ms, peer = h.torch_ms(data, c0, precision)
            rows.append(h.add(spec, "lloyd", "cuda", precision, "", 0, m, peer, peer_ms))
    for r in rows:
        r["ten_iterations_s"] = 10 * r["ms_per_iter_median"] / 1e3
    base = {r["bind"]: r["ms_per_iter_median"] for r in sweep if r["threads"] == 1}
    for r in sweep:
        r["speedup"] = base.get(r["bind"], r["ms_per_iter_median"]) / r["ms_per_iter_median"]

    def draw(plt):
        fig, ax = plt.subplots(figsize=(6, 4))
        for bind in ("none", "compact", "spread"):
            sel = [r for r in sweep if r["bind"] == bind]
            ax.plot([r["threads"] for r in sel], [r["speedup"] for r in sel], marker="o", label=f"--bind {bind}")
        ax.plot([1, h.cores], [1, h.cores], "k:", label="linear")
        ax.set_xlabel("OpenMP threads")
        ax.set_ylabel("speed-up over 1 thread")
        ax.legend()
        ax.set_title(f"Lloyd f32, {spec}")
        return fig

    if sweep:
        h.plot("pisa-threads.png", draw)
    h.write("pisa: 10M points, K = 5, 10 iterations, and thread placement",
            [("Every back end (goal of the Pisa report: 10 iterations under 5 s)",
              table(rows, ["backend", "precision", "threads", "ms_per_iter_median", "ten_iterations_s", "x_floor",
                           "peer", "peer_ms_per_iter", "x_peer"])),
             ("OpenMP thread sweep per placement", table(sweep, ["bind", "threads", "ms_per_iter_median", "speedup",
                                                                 "x_floor", "first_iter_ms"]))])


# ---- map --------------------------------------------------------------------------------------

def draw_map(plt, best_rows, ns, ds, ks, kinds):
    backends = sorted({r["backend"] for r in best_rows})
    fig, axes = plt.subplots(len(backends) * len(kinds), len(ns), figsize=(4 * len(ns), 3.4 * len(backends) * 2),
                             squeeze=False)
    for b, backend in enumerate(backends):
        for q, kind in enumerate(kinds):
            for c, n in enumerate(ns):
                ax = axes[b * len(kinds) + q][c]
                grid = np.full((len(ds), len(ks)), np.nan)
                for r in best_rows:
                    if r["backend"] == backend and r["kind"] == kind and r["n"] == n and r["x_peer"]:
                        grid[ds.index(r["d"]), ks.index(r["k"])] = np.log2(r["x_peer"])
                ax.imshow(grid, cmap="RdYlGn", vmin=-3, vmax=3, aspect="auto")
                for r in best_rows:
                    if r["backend"] == backend and r["kind"] == kind and r["n"] == n:
                        text = f"{r['ms_per_iter_median']:.3g} ms\n{(r['x_peer'] or float('nan')):.2g}x peer\n" \
                               f"{(r['x_floor'] or float('nan')):.2g}x floor"
                        ax.text(ks.index(r["k"]), ds.index(r["d"]), text, ha="center", va="center", fontsize=6)
                ax.set_xticks(range(len(ks)), [f"k={k}" for k in ks])
                ax.set_yticks(range(len(ds)), [f"d={d}" for d in ds])
                ax.set_title(f"{backend}, {kind}, n={n:.0e}", fontsize=9)
    fig.suptitle("best solver per shape (f32): time per iteration, speed-up over the best peer (colour: "
                 "log2, green = we are faster), distance to the floor")
    return fig


def suite_map(h, args):
    # Quick: a smoke run of the harness (files, columns, plot), not of the machine: 2·10^4 and
    # 10^5 points took CI's 2 cores 10 s where 10^5 and 10^6 took 58.
    ns = (20_000, 100_000) if h.quick else (100_000, 1_000_000, 10_000_000, 100_000_000)
    ds = (2, 16) if h.quick else (2, 4, 16, 64, 200)
    ks = (5, 100) if h.quick else (5, 100, 1000)
    kinds = ("blobs", "uniform")
    # Part of the map (to split a full map across runs): KMS_MAP_N=1e6,1e7 KMS_MAP_D=2,16 KMS_MAP_K=... KMS_MAP_KINDS=blobs
    def listed(name, default, cast):
        value = os.environ.get(name)
        return tuple(cast(float(v)) if cast is int else v for v in value.split(",")) if value else default
    ns, ds, ks = listed("KMS_MAP_N", ns, int), listed("KMS_MAP_D", ds, int), listed("KMS_MAP_K", ks, int)
    kinds = listed("KMS_MAP_KINDS", kinds, str)
    budget_s = 1.0 if h.quick else float(os.environ.get("KMS_MAP_BUDGET_S", "3"))  # per iteration, estimated
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    best_rows, sk_cache = [], {}
    for n in ns:
        for d in ds:
            if n * d * 8 * 4 > memory / 2:
                h.note(f"map: n={n}, d={d} skipped: its copies would not fit half the memory")
                continue
            for kind in kinds:
                spec = f"{kind}:n={n},d={d}" + (f",k={min(100, n)}" if kind == "blobs" else "")
                data = None
                for k in ks:
                    work = 3.0 * n * d * k
                    for backend in (["omp"] if h.cpu else []) + (["cuda"] if h.gpu and h.has_cuda else []):
                        ceiling = (h.cpu_ceilings(h.cores)["mix_f32_gflops"] * 1e9 if backend == "omp"
                                   else h.gpu_ceilings()["fp32_tflops"] * 0.5e12)
                        if work / ceiling > budget_s:
                            h.note(f"map: {spec} k={k} {backend} skipped: a Lloyd iteration would take over "
                                   f"{budget_s:g} s at the measured ceiling")
                            continue
                        data = data or h.dataset(spec)
                        init, c0 = h.initial_centroids(data, k)
                        best = None
                        for solver in ("lloyd", "elkan", "hamerly"):
                            if solver == "elkan" and n * k * 4 > memory / 4:
                                continue
                            try:
                                m = h.measure_ours(data, init, k, solver=solver, backend=backend, precision="f32",
                                                   threads=h.cores, iterations=6, repeats=1 if n >= 10**7 else None)
                            except RuntimeError as error:
                                h.note(f"map: {spec} k={k} {solver}/{backend}: {str(error)[-160:]}")
                                continue
                            if best is None or m["ms_median"] < best[1]["ms_median"]:
                                best = (solver, m)
                        if best is None:
                            continue
                        if backend == "omp":
                            if 10 * work / ceiling > 4 * budget_s:
                                peer_ms, peer = None, "scikit-learn not run: estimated over the time budget"
                            else:
                                peer_ms, peer = peer_for_cpu(h, data, c0, h.cores, "f32", 6, sk_cache)
                        else:
                            peer_ms, peer = h.torch_ms(data, c0, "f32", iterations=5)
                        row = h.add(spec, best[0], backend, "f32", h.cores if backend == "omp" else "", 0, best[1],
                                    peer, peer_ms, note="best of lloyd/elkan/hamerly")
                        row["kind"] = kind
                        best_rows.append(row)
                h.drop_data()

    if best_rows:
        h.plot("map.png", lambda plt: draw_map(plt, best_rows, ns, ds, ks, kinds))
    h.write("map: the best solver per shape against the best peer and the floor",
            [("Best of Lloyd / Elkan / Hamerly per shape, f32", table(
                best_rows, ["backend", "dataset", "k", "solver", "ms_per_iter_median", "first_iter_ms", "floor_ms",
                            "x_floor", "peer", "peer_ms_per_iter", "x_peer"]))])


# ---- seeding ----------------------------------------------------------------------------------

def suite_seeding(h, args):
    """Plain vs bounded k-means++ (a tree of boxes) vs k-means‖ (issue 41), by bench/bench_seeding: seeding
    wall and CPU time, distances, bitwise agreement with plain k-means++, Lloyd's final inertia
    (to convergence, tol 1e-4, by Hamerly: Lloyd's result) over seeds 0..S-1, all cores."""
    binary = os.environ.get("KMS_BENCH_SEEDING", os.path.join(os.path.dirname(h.ceiling_bin), "bench_seeding"))
    if not os.path.exists(binary):
        sys.exit(f"bench: bench_seeding not found at {binary}: build it (scripts/build.sh --target bench_seeding)")
    if h.quick:
        cases, seeds = [("blobs:n=100000,k=100,d=2", 1000), ("blobs:n=100000,k=100,d=2", 100)], 2
    else:
        cases = [("blobs:n=1000000,k=100,d=2", 1000), ("blobs:n=1000000,k=100,d=2", 100),
                 ("blobs:n=100000,k=100,d=2", 1000)]
        seeds = int(os.environ.get("KMS_BENCH_SEEDS", 10))
    thread_list = sorted({1, h.cores})
    runs = []
    for (spec, k), threads in [(case, t) for case in cases for t in thread_list]:
        out = subprocess.run([binary, "--generate", spec, "--k", str(k), "--seeds", str(seeds), "--threads",
                              str(threads), "--methods", "plain,bounded,parallel", "--lloyd", "on"],
                             check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            r = json.loads(line)
            runs.append(r)
            with open(os.path.join(h.out, "seeding.jsonl"), "a") as f:
                f.write(line + "\n")
            print(json.dumps({c: r[c] for c in ("data", "k", "threads", "method", "seed", "init_ms", "inertia")}),
                  flush=True)
    lines = ["| data | k | threads | seeding | ms (mean) | CPU ms (mean) | x plain (ms) | x plain (CPU) | "
             "point distances (mean) | centre distances | candidates | same centres as plain | "
             "final inertia (mean) | vs plain |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (spec, k), threads in [(case, t) for case in cases for t in thread_list]:
        group = {m: [r for r in runs if r["data"] == spec and r["k"] == k and r["threads"] == threads
                     and r["method"] == m] for m in ("plain", "bounded", "parallel")}
        base_ms = np.mean([r["init_ms"] for r in group["plain"]])
        base_cpu = np.mean([r["init_cpu_ms"] for r in group["plain"]])
        base_inertia = np.mean([r["inertia"] for r in group["plain"]])
        for method, rs in group.items():
            ms = np.mean([r["init_ms"] for r in rs])
            inertia = np.mean([r["inertia"] for r in rs])
            cpu = np.mean([r["init_cpu_ms"] for r in rs])
            same = f"{sum(r['same_as_plain'] for r in rs)}/{len(rs)}" if method != "parallel" else "(another method)"
            lines.append(f"| {spec} | {k} | {threads} | {method} | {ms:.0f} | {cpu:.0f} | {base_ms / ms:.2f} | "
                         f"{base_cpu / cpu:.2f} | {np.mean([r['point_centroid_distances'] for r in rs]):.3g} | "
                         f"{np.mean([r['centroid_centroid_distances'] for r in rs]):.3g} | "
                         f"{np.mean([r['candidates'] for r in rs]):.0f} | {same} | {inertia:.6g} | "
                         f"{100 * (inertia / base_inertia - 1):+.2f} % |")
    h.write("seeding", [("Seeding: plain vs bounded k-means++ vs k-means‖",
                         f"{seeds} seeds (0..{seeds - 1}) per row, 1 and {h.cores} threads, data seed 1; "
                         "plain = `--init kmeans++ --init-bounds off`, bounded = `--init-bounds on`, "
                         "parallel = `--init kmeans-parallel` (oversampling 2, 5 rounds); inertia after Lloyd "
                         "to convergence (tol 1e-4) from each seeding; raw rows in seeding.jsonl.\n\n"
                         + "\n".join(lines))])


# ---- highd ------------------------------------------------------------------------------------

def highd_gpu_configs(h, data, c0, k):
    """Our CUDA Lloyd step at one shape, f32: the exact kernel alone, the GEMM filter in its two formats,
    and --solver auto; the medians of steps 3..12 and the shares the filter certified and verified."""
    n = int(np.load(data, mmap_mode="r").shape[0])
    base = [h.cli, "run", "--input", data, "--k", str(k), "--init", c0, "--backend", "cuda", "--precision", "f32",
            "--max-iter", "12", "--tol", "0", "--report", "json"]
    configs = {"exact": (["--solver", "lloyd", "--variant", "shared", "--gemm-filter", "off"], {}),
               "tf32": (["--solver", "lloyd", "--variant", "shared"], {}),
               "int8": (["--solver", "lloyd", "--variant", "shared"], {"KMS_GEMM_FORMAT": "int8"}),
               "auto": (["--solver", "auto"], {})}
    # KMS_HIGHD_CONFIGS (names of the above, space-separated) measures fewer (a short device call).
    wanted = os.environ.get("KMS_HIGHD_CONFIGS", " ".join(configs)).split()
    ours = {}
    for name, (extra, env) in configs.items():
        if name not in wanted:
            continue
        out = subprocess.run(base + extra, capture_output=True, text=True, env={**os.environ, **env})
        its = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        its = [r for r in its if r.get("type") == "iteration"][2:]
        if out.returncode != 0 or not its:
            ours[name] = {"failed": True}
            continue

        def med(f):
            return round(statistics.median(f(r) for r in its), 4)
        ours[name] = {"total": med(lambda r: r["time_total_ms"]), "assign": med(lambda r: r["time_assign_ms"]),
                      "update": med(lambda r: r["time_update_ms"]),
                      "certified": med(lambda r: r.get("gemm_certified", 0) / n),
                      "verified": med(lambda r: r.get("verified_points", 0) / n),
                      "listed": med(lambda r: r.get("gemm_listed", 0) / n), "steps": len(its)}
    return ours


def suite_highd(h, args):
    """Issue 37's high-d map. GPU (where CUDA runs): our Lloyd step (exact kernel, TF32 and int8 GEMM
    filter, auto) against PyTorch (exact FP32; compiled TF32, inexact) and flash-kmeans (when
    KMS_FLASH_KMEANS names the folder of its public source), by bench/gpu/highd_peers.py, wrong labels
    counted. CPU (all cores): bench/cpu_vs_sklearn.py --grid: ours with and without the certified GEMM
    against scikit-learn and FAISS. KMS_HIGHD_D, KMS_HIGHD_K, KMS_HIGHD_DATA, KMS_HIGHD_N,
    KMS_HIGHD_EXTRA (KIND:N:D:K ...) narrow or widen the GPU grid, KMS_HIGHD_CONFIGS our configurations."""
    here = os.path.dirname(os.path.abspath(__file__))
    sections = []
    if h.cpu:
        n = 100_000 if h.quick else int(os.environ.get("KMS_HIGHD_CPU_N", 1_000_000))
        ds = "16,64" if h.quick else os.environ.get("KMS_HIGHD_CPU_D", "16,32,64,128,256")
        ks = "100,1000" if h.quick else os.environ.get("KMS_HIGHD_CPU_K", "5,32,100,1000")
        table = subprocess.run([sys.executable, os.path.join(here, "..", "cpu_vs_sklearn.py"), "--grid", "--cli", h.cli,
                                "--n", str(n), "--grid-d", ds, "--grid-k", ks, "--threads", str(h.cores),
                                "--iterations", "3" if h.quick else "5", "--repeats", str(h.repeats)],
                               check=True, capture_output=True, text=True).stdout
        sections.append(("CPU: Lloyd per step against scikit-learn and FAISS", table))
    if h.has_cuda:
        ds = os.environ.get("KMS_HIGHD_D", "16 64" if h.quick else "16 32 64 128 256").split()
        ks = os.environ.get("KMS_HIGHD_K", "100 1000").split()
        kinds = os.environ.get("KMS_HIGHD_DATA", "blobs uniform").split()
        n = int(os.environ.get("KMS_HIGHD_N", 100_000 if h.quick else 1_000_000))
        extra = os.environ.get("KMS_HIGHD_EXTRA", "" if h.quick else
                               "uniform:1000000:128:1024 blobs:4000000:128:1024").split()
        shapes = [(kind, n, int(d), int(k)) for kind in kinds for d in ds for k in ks]
        shapes += [(kind, int(sn), int(sd), int(sk)) for kind, sn, sd, sk in (e.split(":") for e in extra)]
        jobs = os.path.join(h.tmp, "jobs.txt")
        with open(jobs, "w") as f:
            for kind, sn, d, k in shapes:
                data = os.path.join(h.tmp, f"{kind}-{sn}-{d}.npy")
                if not os.path.exists(data):
                    spec = f"{kind}:n={sn},d={d}" + (",k=100" if kind == "blobs" else "")
                    subprocess.run([h.cli, "generate", "--generate", spec, "--seed", "7", "--out", data], check=True,
                                   capture_output=True)
                c0 = os.path.join(h.tmp, f"{kind}-{sn}-{d}-{k}-c0.npy")
                x = np.load(data, mmap_mode="r")
                rows = np.sort(np.random.default_rng(3).choice(len(x), k, replace=False))
                np.save(c0, np.ascontiguousarray(x[rows]))
                ours = highd_gpu_configs(h, data, c0, k)
                print(f"{kind} n={sn} d={d} k={k}: {json.dumps(ours)}", flush=True)
                f.write(f"{kind},n={sn},d={d},k={k} {data} {c0} {json.dumps(ours)}\n")
        command = [sys.executable, os.path.join(here, "..", "gpu", "highd_peers.py"), "--jobs", jobs, "--json",
                   os.path.join(h.out, "highd.json")]
        if os.environ.get("KMS_FLASH_KMEANS"):
            command += ["--flash", os.environ["KMS_FLASH_KMEANS"]]
        peers = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        sections.append(("GPU: Lloyd per step against PyTorch and flash-kmeans",
                         peers[peers.find("ms per Lloyd step"):]))
    if not sections:
        h.note("no CPU rows asked for and no CUDA device: nothing measured")
    h.write("highd", sections)


# ---- solvers ----------------------------------------------------------------------------------

def registered_solvers(cli):
    """The solvers kmeans-cli lists under --solver (the registry's order: oldest paper first)."""
    text = subprocess.run([cli, "run", "--help"], capture_output=True, text=True).stdout
    line = next(l for l in text.splitlines() if l.strip().startswith("--solver"))
    names = line.split("NAME", 1)[1].split("(")[0]
    return [name.strip() for name in names.split("|") if name.strip()]


def suite_solvers(h, args):
    """Issue 41: every registered solver to convergence (tol 0: until no label changes, capped at
    KMS_SOLVERS_MAX_ITER iterations) from the same random initial rows, at all cores (omp) and on the
    GPU where CUDA runs (solvers without a CUDA version are marked so): time to convergence and the
    distance counts. Grid: n in {10^5, 10^6}, d in {2, 8, 32, 64}, k in {10, 100, 1000, 5000}, blobs
    and uniform. KMS_SOLVERS_N, _D, _K, _DATA (comma lists), _SOLVERS, _MAX_ITER, _TIMEOUT (seconds: a run
    slower than this is not repeated) and _RUN_TIMEOUT (seconds: a run is stopped there, its row says
    "cut") narrow it (the reduced grid of a small machine); --quick: n = 10^5, d in {2, 8},
    k in {100, 1000}. Elkan is left out where its n x k lower bounds exceed KMS_SOLVERS_ELKAN_BOUNDS
    (default 2.5e8)."""
    def env_list(name, default):
        return [x for x in os.environ.get(name, default).split(",") if x]
    ns = [int(float(x)) for x in env_list("KMS_SOLVERS_N", "100000" if h.quick else "100000,1000000")]
    ds = [int(x) for x in env_list("KMS_SOLVERS_D", "2,8" if h.quick else "2,8,32,64")]
    ks = [int(x) for x in env_list("KMS_SOLVERS_K", "100,1000" if h.quick else "10,100,1000,5000")]
    kinds = env_list("KMS_SOLVERS_DATA", "blobs,uniform")
    solvers = env_list("KMS_SOLVERS_SOLVERS", ",".join(registered_solvers(h.cli)))
    max_iter = int(os.environ.get("KMS_SOLVERS_MAX_ITER", "100" if h.quick else "300"))
    timeout = float(os.environ.get("KMS_SOLVERS_TIMEOUT", "0")) or None
    run_timeout = float(os.environ.get("KMS_SOLVERS_RUN_TIMEOUT", "0")) or None
    elkan_bounds = float(os.environ.get("KMS_SOLVERS_ELKAN_BOUNDS", "2.5e8"))
    backends = ([("omp", h.cores)] if h.cpu else []) + ([("cuda", 0)] if h.gpu and h.has_cuda else [])
    if h.gpu and not h.has_cuda:
        h.note("GPU rows absent: no CUDA device here")
    results, lines = [], []
    for kind in kinds:
        for n in ns:
            for d in ds:
                spec = f"{kind}:n={n},d={d}" + (",k=100" if kind == "blobs" else "")
                data = h.dataset(spec)
                for k in ks:
                    init, _ = h.initial_centroids(data, k)
                    for backend, threads in backends:
                        shape = {"data": kind, "n": n, "d": d, "k": k, "backend": backend}
                        # The solvers interleaved, repeat by repeat: a shared machine's load drifts,
                        # and each solver then meets the same drift.
                        runs = {}
                        for repeat in range(h.repeats):
                            for solver in solvers + ["auto"]:
                                if solver == "elkan" and n * k > elkan_bounds:
                                    continue
                                done = runs.setdefault(solver, {"times": []})
                                if "error" in done or (repeat > 0 and done.get("slow")):
                                    continue
                                kw = dict(solver=solver, backend=backend, precision="f64", threads=threads,
                                          iterations=max_iter, tol=0.0, timeout=run_timeout)
                                try:
                                    started = time.time()
                                    steps, summary = h.run_ours(data, init, k, **kw)
                                    done["slow"] = bool(timeout) and time.time() - started > timeout
                                    done["times"].append(sum(s["time_total_ms"] for s in steps) / 1e3)
                                    done.update(iterations=summary["iterations"], ran=summary["solver"].split("/")[0],
                                                distances=sum(s["point_centroid_distances"] for s in steps),
                                                cc_distances=sum(s["centroid_centroid_distances"] for s in steps),
                                                skips=sum(s["bound_skips"] for s in steps),
                                                stable=sum(s.get("stable_points", 0) for s in steps),
                                                second=sum(s.get("second_centred", 0) for s in steps))
                                except RuntimeError as error:
                                    done["error"] = str(error)[-160:]
                        for solver, done in runs.items():
                            row = dict(shape, solver=solver, seconds=median(done["times"]) if done["times"] else None,
                                       seconds_all=done.pop("times"))
                            done.pop("slow", None)
                            row.update(done)
                            results.append(row)
                            with open(os.path.join(h.out, "results.jsonl"), "a") as f:
                                f.write(json.dumps(row) + "\n")
                            print(json.dumps(row), flush=True)
                h.drop_data()
    # One table per back end: time to convergence per solver, x Exponion, distances as % of Lloyd's.
    sections = []
    for backend, _ in backends:
        rows = [r for r in results if r["backend"] == backend]
        shapes = sorted({(r["data"], r["n"], r["d"], r["k"]) for r in rows})
        header = "| data | n | d | k | iters | " + " | ".join(solvers) + " | auto picks | exponion time / best of shallot, ball |"
        out = [header, "|" + "---|" * (len(solvers) + 7)]
        for shape in shapes:
            at = {r["solver"]: r for r in rows if (r["data"], r["n"], r["d"], r["k"]) == shape}
            lloyd = at.get("lloyd", {}).get("distances")
            times = {s: at[s]["seconds"] for s in solvers if s in at and at[s].get("seconds") is not None}
            best = min(times.values()) if times else None
            cells = []
            for s in solvers:
                if s not in times:
                    cells.append("—")
                    continue
                share = f" ({100 * at[s]['distances'] / lloyd:.0f} %)" if lloyd else ""
                mark = "**" if times[s] == best else ""
                cells.append(f"{mark}{times[s]:.3g}{mark}{share}")
            iterations = next((r.get("iterations") for r in at.values() if r.get("iterations")), "")
            auto = at.get("auto", {})
            auto_cell = f"{auto.get('ran', '—')} {auto['seconds']:.3g}" if auto.get("seconds") else "—"
            new = [times[s] for s in ("shallot", "ball") if s in times]
            ratio = f"{times['exponion'] / min(new):.2f}x" if new and "exponion" in times else "—"
            out.append(f"| {shape[0]} | {shape[1]} | {shape[2]} | {shape[3]} | {iterations} | " + " | ".join(cells) +
                       f" | {auto_cell} | {ratio} |")
        sections.append((f"{backend}: seconds to convergence (distances as % of Lloyd's), bold: fastest",
                         "\n".join(out)))
    h.write("solvers", sections)


SUITES = {"thesis": suite_thesis, "he": suite_he, "zechner": suite_zechner, "pisa": suite_pisa, "map": suite_map,
          "seeding": suite_seeding, "highd": suite_highd, "solvers": suite_solvers}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("suite", choices=sorted(SUITES))
    p.add_argument("--quick", action="store_true", help="reduced sizes: under 5 minutes on 2 cores")
    p.add_argument("--out", default=None, help="output folder (default bench-results/SUITE)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--device-only", action="store_true", help="GPU rows only")
    group.add_argument("--cpu-only", action="store_true", help="CPU rows only")
    p.add_argument("--build", default=os.environ.get("KMS_BUILD_DIR", "build"))
    args = p.parse_args()
    build = os.path.abspath(args.build)
    cli = os.environ.get("KMS_CLI", os.path.join(build, "app", "kmeans-cli"))
    ceiling = os.environ.get("KMS_BENCH_CEILING", os.path.join(build, "bench", "bench_ceiling"))
    cuda_bench = os.environ.get("KMS_BENCH_CUDA", os.path.join(build, "bench", "bench_cuda_solvers"))
    for path, what in ((cli, "kmeans-cli"), (ceiling, "bench_ceiling")):
        if not os.path.exists(path):
            sys.exit(f"bench: {what} not found at {path}: build first (scripts/build.sh) or set KMS_BUILD_DIR")
    out = os.path.abspath(args.out or os.path.join("bench-results", args.suite))
    h = Harness(args.suite, out, args.quick, cpu=not args.device_only, gpu=not args.cpu_only, cli=cli,
                ceiling_bin=ceiling, cuda_bench_bin=cuda_bench)
    def stop(signum, frame):
        raise TimeLimit(f"stopped by signal {signum}")
    signal.signal(signal.SIGTERM, stop)
    try:
        SUITES[args.suite](h, args)
    except (TimeLimit, KeyboardInterrupt) as cut:
        # Cut short (a time limit): the rows measured so far still make a report.
        h.note(f"the run was cut short ({cut or 'interrupted'}): the tables hold the rows measured until then")
        h.write(f"{args.suite} (cut short)", [("Rows measured", table(h.rows, ["dataset", "k", "solver", "backend",
                                                                               "precision", "threads",
                                                                               "ms_per_iter_median", "x_floor",
                                                                               "peer_ms_per_iter", "x_peer"]))])
        sys.exit(3)
    print(f"bench: {args.suite} done: {out}/results.csv, results.jsonl, report.md", flush=True)


if __name__ == "__main__":
    main()
