"""The benchmark harness behind scripts/bench.sh: data, our runs through
kmeans-cli, peers in the same process on the same data and initial centroids,
measured ceilings, and the results files (results.csv, results.jsonl,
report.md, PNG plots).

Our per-iteration time is the step time kmeans-cli reports (assignment, bounds,
update: the solver's own, no I/O), over the iterations after the first (the
warm-up iteration is reported apart); peers' per-iteration time is a fit of a
fixed iteration count (tol = 0) divided by the iterations it ran, repeated.
"""
import csv
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

COLUMNS = ["suite", "dataset", "n", "d", "k", "solver", "backend", "precision", "threads", "block_size",
           "iterations", "ms_per_iter_median", "ms_per_iter_min", "ms_per_iter_max", "first_iter_ms", "assign_ms", "update_ms",
           "time_to_converge_s", "distance_evals", "skip_rate", "inertia", "gbps", "gflops", "floor_ms",
           "x_floor", "peer", "peer_ms_per_iter", "x_peer", "simd", "bind", "spread_flag", "note"]

SPREAD_LIMIT = 0.20  # (max - min) / median above this is flagged in the report


def median(values):
    return statistics.median(values) if values else None


def median_step_ms(step, x, c, warmup=3, repeats=10):
    """PyTorch on the GPU: the median ms of `repeats` CUDA-event-timed steps c = step(x, c) after
    `warmup` untimed ones (bench/gpu/torch_step.py uses it too)."""
    import torch
    for _ in range(warmup):
        c = step(x, c)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        c = step(x, c)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def have_module(name):
    try:
        __import__(name)
        return True
    except Exception:
        return False


class Harness:
    def __init__(self, suite, out_dir, quick, cpu, gpu, cli, ceiling_bin, cuda_bench_bin, repeats=3):
        self.suite, self.out, self.quick = suite, out_dir, quick
        self.cpu, self.gpu = cpu, gpu
        self.cli, self.ceiling_bin, self.cuda_bench_bin = cli, ceiling_bin, cuda_bench_bin
        self.repeats = 1 if quick else int(os.environ.get("KMS_BENCH_REPEATS", repeats))
        self.rows = []
        self.notes = []
        self.plots = []
        self.tmp = tempfile.mkdtemp(prefix="kms-bench-")
        self._data = {}
        self._files_made = 0
        self._cpu_ceilings = {}
        self._gpu_ceilings = None
        self._torch_cache = {}
        self._torch_compiled = None
        os.makedirs(out_dir, exist_ok=True)
        for stale in ("results.jsonl", "results.csv", "report.md"):
            if os.path.exists(os.path.join(out_dir, stale)):
                os.remove(os.path.join(out_dir, stale))
        self.cores = os.cpu_count() or 1
        self.has_cuda = self._cuda_available() if gpu else False
        if gpu and not self.has_cuda:
            self.note("GPU: no CUDA device or no CUDA build here; the GPU rows are absent.")
        self.sklearn = have_module("sklearn") and have_module("threadpoolctl")
        self.torch_cuda = False
        if self.has_cuda and have_module("torch"):
            import torch
            self.torch_cuda = torch.cuda.is_available()
        self.started = time.time()

    # ---- machine ---------------------------------------------------------------------------
    def _cuda_available(self):
        if not self.cuda_bench_bin or not os.path.exists(self.cuda_bench_bin):
            return False
        if shutil.which("nvidia-smi") is None:
            return False
        probe = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
        return probe.returncode == 0 and "GPU" in probe.stdout

    def machine_facts(self):
        facts = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "python": platform.python_version()}
        facts["cpu"] = cpu_name()
        facts["cores"] = self.cores
        try:
            with open("/proc/meminfo") as f:
                facts["memory_gib"] = round(int(f.readline().split()[1]) / 2**20, 1)
        except (OSError, ValueError, IndexError):
            pass
        facts["numpy"] = np.__version__
        if self.sklearn:
            import sklearn
            facts["scikit-learn"] = sklearn.__version__
        else:
            facts["scikit-learn"] = "absent"
        if have_module("torch"):
            import torch
            facts["torch"] = torch.__version__
        else:
            facts["torch"] = "absent"
        if self.has_cuda:
            q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                               capture_output=True, text=True).stdout.strip().splitlines()
            facts["gpu"] = q[0] if q else "?"
        else:
            facts["gpu"] = "none used"
        try:
            root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            facts["commit"] = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                                             text=True).stdout.strip() or "?"
        except OSError:
            facts["commit"] = "?"
        facts["simd"] = self.cpu_ceilings(self.cores).get("simd", "?")
        return facts

    def cpu_ceilings(self, threads):
        if threads not in self._cpu_ceilings:
            mib = "256" if self.quick else "1024"
            out = subprocess.run([self.ceiling_bin, str(threads), mib], capture_output=True, text=True, check=True)
            self._cpu_ceilings[threads] = json.loads(out.stdout.strip().splitlines()[-1])
        return self._cpu_ceilings[threads]

    def gpu_ceilings(self):
        if self._gpu_ceilings is None:
            out = subprocess.run([self.cuda_bench_bin, "--ceilings"], capture_output=True, text=True, check=True)
            self._gpu_ceilings = json.loads(out.stdout.strip().splitlines()[-1])
        return self._gpu_ceilings

    # ---- data ------------------------------------------------------------------------------
    def dataset(self, spec, seed=7):
        """A generated data set as .npy (cached for the run) and its numpy array (float64)."""
        key = (spec, seed)
        if key not in self._data:
            # A name never reused in the run: the peers' caches are keyed by path.
            self._files_made += 1
            path = os.path.join(self.tmp, f"data{self._files_made}.npy")
            subprocess.run([self.cli, "generate", "--generate", spec, "--seed", str(seed), "--out", path,
                            "--format", "npy"], check=True, capture_output=True)
            self._data[key] = path
        return self._data[key]

    def drop_data(self):
        for path in self._data.values():
            try:
                os.remove(path)
            except OSError:
                pass
        self._data = {}

    def initial_centroids(self, data_path, k, seed=7, method="random"):
        """The initial centroids everyone starts from: k distinct random rows (numpy's
        generator, this seed), or scikit-learn's k-means++ (kmeans_plusplus) where present."""
        x = np.load(data_path, mmap_mode="r")
        rng = np.random.default_rng(seed)
        if method == "kmeans++" and self.sklearn:
            from sklearn.cluster import kmeans_plusplus
            c0, _ = kmeans_plusplus(np.asarray(x, dtype=np.float64), k, random_state=seed)
        else:
            if method == "kmeans++":
                self.note("k-means++ initial centroids need scikit-learn (absent): random rows used instead")
            rows = np.sort(rng.choice(x.shape[0], size=k, replace=False))
            c0 = np.array(x[rows], dtype=np.float64)
        path = os.path.join(self.tmp, f"init-{os.path.basename(data_path)}-{k}-{seed}.csv")
        np.savetxt(path, c0, delimiter=",", fmt="%.17g")
        return path, c0

    # ---- our runs --------------------------------------------------------------------------
    def run_ours(self, data, init, k, solver="lloyd", backend="omp", precision="f32", threads=0, block_size=0,
                 iterations=10, tol=0.0, extra=(), timeout=None):
        """One kmeans-cli run; returns its iteration records and summary (RuntimeError when it
        fails or runs past `timeout` seconds)."""
        cmd = [self.cli, "run", "--input", data, "--k", str(k), "--init", init, "--solver", solver,
               "--precision", precision, "--backend", backend, "--max-iter", str(iterations), "--tol", repr(tol),
               "--report", "json"]
        if backend == "omp":
            cmd += ["--threads", str(threads or self.cores)]
        if block_size:
            cmd += ["--block-size", str(block_size)]
        cmd += list(extra)
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"cut: over {timeout:g} s") from None
        if out.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {out.stderr.strip()[-400:]}")
        records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        steps = [r for r in records if r.get("type") == "iteration"]
        summary = next(r for r in records if r.get("type") == "summary")
        return steps, summary

    def measure_ours(self, data, init, k, repeats=None, **kw):
        """Repeated runs: per-iteration times (iterations 2..), first-iteration time, work and skips."""
        repeats = repeats or self.repeats
        per_iter, first, steps_all, summary = [], [], [], None
        for _ in range(repeats):
            steps, summary = self.run_ours(data, init, k, **kw)
            first.append(steps[0]["time_total_ms"])
            later = steps[1:] or steps
            per_iter.append(median([s["time_total_ms"] for s in later]))
            steps_all = steps
        later = steps_all[1:] or steps_all
        return {
            "ms_median": median(per_iter), "ms_min": min(per_iter), "ms_max": max(per_iter),
            "first_ms": median(first), "iterations": summary["iterations"],
            "converge_s": sum(s["time_total_ms"] for s in steps_all) / 1e3,
            "distance_evals": sum(s["point_centroid_distances"] for s in later) / len(later),
            "skip_rate": sum(s["bound_skips"] for s in later) / (len(later) * summary["n"]),
            "inertia": summary.get("inertia"), "n": summary["n"], "d": summary["d"], "k": k,
            "phases": {p: median([s[f"time_{p}_ms"] for s in later]) for p in ("assign", "bounds", "update")},
            "steps": steps_all,
        }

    # ---- peers -----------------------------------------------------------------------------
    def sklearn_ms(self, data, c0, algorithm, threads, iterations, dtype=np.float64):
        """scikit-learn's time per iteration: a fit of `iterations` iterations (tol=0, n_init=1,
        our initial centroids) divided by the iterations it ran; median of repeats. None when absent."""
        if not self.sklearn:
            return None, "scikit-learn absent"
        from sklearn.cluster import KMeans
        from threadpoolctl import threadpool_limits
        x = np.load(data).astype(dtype)
        times = []
        for _ in range(self.repeats):
            with threadpool_limits(limits=threads):
                model = KMeans(n_clusters=c0.shape[0], init=c0.astype(dtype), n_init=1, max_iter=iterations, tol=0.0,
                               algorithm=algorithm)
                start = time.perf_counter()
                model.fit(x)
                elapsed = time.perf_counter() - start
            times.append(1e3 * elapsed / model.n_iter_)
        return median(times), f"scikit-learn {algorithm}, {threads} threads, fit/{model.n_iter_} iterations"

    def sklearn_converge_s(self, data, c0, algorithm, threads, tol=1e-4, dtype=np.float64):
        if not self.sklearn:
            return None, None
        from sklearn.cluster import KMeans
        from threadpoolctl import threadpool_limits
        x = np.load(data).astype(dtype)
        with threadpool_limits(limits=threads):
            model = KMeans(n_clusters=c0.shape[0], init=c0.astype(dtype), n_init=1, tol=tol, algorithm=algorithm)
            start = time.perf_counter()
            model.fit(x)
            return time.perf_counter() - start, model

    def torch_ms(self, data, c0, precision, iterations=10):
        """PyTorch on the GPU, best of its simple forms: cdist, matmul distance form, and
        torch.compile of the matmul form; per-iteration CUDA-event medians (compilation and
        warm-up excluded). Returns (best ms, description) or (None, reason)."""
        if not self.torch_cuda:
            return None, "PyTorch with CUDA absent"
        key = (data, c0.shape[0], precision, c0.tobytes())
        if key not in self._torch_cache:  # the same data and start: measured once per run
            self._torch_cache[key] = self._torch_ms(data, c0, precision, iterations)
        return self._torch_cache[key]

    def _torch_ms(self, data, c0, precision, iterations):
        import torch
        dtype = torch.float32 if precision == "f32" else torch.float64
        x = torch.from_numpy(np.load(data)).to("cuda", dtype)
        c_start = torch.from_numpy(c0).to("cuda", dtype)

        def update(x, labels, c):
            k = c.shape[0]
            sums = torch.zeros_like(c).index_add_(0, labels, x)
            counts = torch.bincount(labels, minlength=k).to(c.dtype).unsqueeze(1)
            return torch.where(counts > 0, sums / counts.clamp_min(1), c)

        def step_cdist(x, c):
            return update(x, torch.cdist(x, c).argmin(dim=1), c)

        def step_matmul(x, c):
            dist = (c * c).sum(1)[None, :] - 2.0 * (x @ c.T)
            return update(x, dist.argmin(dim=1), c)

        forms = {"cdist": step_cdist, "matmul": step_matmul}
        if self._torch_compiled is None:
            try:  # compiled once for the run, shapes dynamic: no recompilation per shape
                self._torch_compiled = torch.compile(step_matmul, dynamic=True)
            except Exception as error:  # torch.compile unavailable: the other forms stand
                self._torch_compiled = False
                self.note(f"torch.compile unavailable: {error}")
        if self._torch_compiled:
            forms["compile-matmul"] = self._torch_compiled
        results = {}
        for name, step in forms.items():
            try:
                results[name] = median_step_ms(step, x, c_start.clone(), 3, iterations)
            except Exception as error:  # e.g. out of memory for the n x k distance matrix
                results[name] = None
                self.note(f"torch {name} failed at n={x.shape[0]}, d={x.shape[1]}, k={c0.shape[0]}: {str(error)[:120]}")
                torch.cuda.empty_cache()
        del x
        torch.cuda.empty_cache()
        done = {name: ms for name, ms in results.items() if ms is not None}
        if not done:
            return None, "every PyTorch form failed"
        best = min(done, key=done.get)
        return done[best], "torch " + best + " (" + ", ".join(f"{n} {ms:.3f}" for n, ms in done.items()) + " ms)"

    # ---- rows ------------------------------------------------------------------------------
    def add(self, dataset, solver, backend, precision, threads, block_size, m, peer=None, peer_ms=None, bind="none",
            note=""):
        n, d, k = m["n"], m["d"], m["k"]
        bytes_, flops = traffic(solver, n, d, k, precision, m["distance_evals"])
        ms = m["ms_median"]
        floor_ms = None
        if backend.startswith("cuda"):
            if self.has_cuda:
                g = self.gpu_ceilings()
                # No FMA in the exact distance: one FP32 operation per instruction, half the FMA flop rate.
                peak = (g["fp32_tflops"] if precision == "f32" else g["fp64_tflops"]) * 1e12 / 2
                floor_ms = 1e3 * max(bytes_ / (g["copy_gbs"] * 1e9), flops / peak)
        else:
            c = self.cpu_ceilings(threads if backend == "omp" else 1)
            floor_ms = 1e3 * max(bytes_ / (c["read_gbs"] * 1e9), flops / (c[f"mix_{precision}_gflops"] * 1e9))
        spread = (m["ms_max"] - m["ms_min"]) / ms if ms else 0.0
        row = {
            "suite": self.suite, "dataset": dataset, "n": n, "d": d, "k": k, "solver": solver, "backend": backend,
            "precision": precision, "threads": threads if backend == "omp" else (1 if backend == "seq" else ""),
            "block_size": block_size or "", "iterations": m["iterations"], "ms_per_iter_median": ms,
            "ms_per_iter_min": m["ms_min"], "ms_per_iter_max": m["ms_max"], "first_iter_ms": m["first_ms"],
            "assign_ms": m["phases"]["assign"] + m["phases"]["bounds"], "update_ms": m["phases"]["update"],
            "time_to_converge_s": m.get("converge_s"), "distance_evals": m["distance_evals"],
            "skip_rate": m["skip_rate"], "inertia": m["inertia"], "gbps": bytes_ / (ms * 1e6) if ms else None,
            "gflops": flops / (ms * 1e6) if ms else None, "floor_ms": floor_ms,
            "x_floor": ms / floor_ms if floor_ms else None, "peer": peer or "", "peer_ms_per_iter": peer_ms,
            "x_peer": (peer_ms / ms) if (peer_ms and ms) else None,
            "simd": self.cpu_ceilings(self.cores).get("simd", "") if not backend.startswith("cuda") else "",
            "bind": bind, "spread_flag": "SPREAD" if spread > SPREAD_LIMIT else "", "note": note,
        }
        self.rows.append(row)
        with open(os.path.join(self.out, "results.jsonl"), "a") as f:  # kept even if the run is cut short
            f.write(json.dumps(row) + "\n")
        print(json.dumps({c: row[c] for c in ("dataset", "solver", "backend", "precision", "threads",
                                               "ms_per_iter_median", "x_floor", "x_peer")}), flush=True)
        return row

    def note(self, text):
        self.notes.append(text)
        print("note:", text, file=sys.stderr, flush=True)

    # ---- outputs ---------------------------------------------------------------------------
    def write(self, title, sections):
        """results.csv, results.jsonl and report.md; `sections` are (heading, markdown) pairs."""
        with open(os.path.join(self.out, "results.csv"), "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            for row in self.rows:
                writer.writerow({c: fmt_cell(row.get(c)) for c in COLUMNS})
        # results.jsonl was written row by row (add()).
        facts = self.machine_facts()
        lines = [f"# {title}", "", "| machine | |", "|---|---|"]
        lines += [f"| {key} | {value} |" for key, value in facts.items()]
        c = self.cpu_ceilings(self.cores)
        lines += ["", "Measured ceilings (bench_ceiling, all cores): "
                  f"memory read {c['read_gbs']:.1f} GB/s, copy {c['copy_gbs']:.1f} GB/s; "
                  f"subtract-multiply-add mix {c['mix_f32_gflops']:.0f} GFLOP/s f32, {c['mix_f64_gflops']:.0f} f64; "
                  f"FMA {c['fma_f32_gflops']:.0f} f32, {c['fma_f64_gflops']:.0f} f64 ({c['simd']})."]
        if self.has_cuda:
            g = self.gpu_ceilings()
            lines += [f"GPU ceilings (bench_cuda_solvers --ceilings): copy {g['copy_gbs']:.0f} GB/s (read+write), "
                      f"FP32 FMA {g['fp32_tflops']:.1f} TFLOP/s, FP64 FMA {g['fp64_tflops']:.1f} TFLOP/s, "
                      f"host-to-device pinned {g['h2d_pinned_gbs']:.1f} GB/s."]
        lines += ["", f"Command: `scripts/bench.sh {self.suite}{' --quick' if self.quick else ''}`; "
                  f"wall time {time.time() - self.started:.0f} s. Columns: docs/benchmarks.md.", ""]
        for heading, body in sections:
            lines += [f"## {heading}", "", body, ""]
        flagged = [r for r in self.rows if r["spread_flag"]]
        if flagged:
            lines += ["## Spread above 20 %", "",
                      "These rows' repeats differ by more than 20 % of their median (max - min): treat them as rough.",
                      ""]
            lines += [f"- {r['dataset']} {r['solver']}/{r['backend']}/{r['precision']} threads={r['threads']}: "
                      f"{r['ms_per_iter_min']:.3f}..{r['ms_per_iter_max']:.3f} ms" for r in flagged]
            lines.append("")
        if self.notes:
            lines += ["## Notes", ""] + [f"- {n}" for n in dict.fromkeys(self.notes)] + [""]
        for plot in self.plots:
            lines += [f"![{plot}]({plot})", ""]
        with open(os.path.join(self.out, "report.md"), "w") as f:
            f.write("\n".join(lines))
        shutil.rmtree(self.tmp, ignore_errors=True)

    def plot(self, name, draw):
        """Draws a PNG with matplotlib (Agg); absent matplotlib is noted, not fatal."""
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except Exception as error:
            self.note(f"plot {name} skipped: matplotlib absent ({error})")
            return
        fig = draw(plt)
        fig.savefig(os.path.join(self.out, name), dpi=110, bbox_inches="tight")
        plt.close(fig)
        self.plots.append(name)


def traffic(solver, n, d, k, precision, evals):
    """Bytes and flops of one iteration by the model in docs/benchmarks.md."""
    s = 4 if precision == "f32" else 8
    # The least traffic an iteration can have: the points read once and the labels
    # written once (a fused assign+update kernel does exactly that); bounded
    # solvers also read and write their bounds.
    bytes_ = 1.0 * n * (d * s + 4)
    if solver == "hamerly":
        bytes_ += 4.0 * n * s
    elif solver == "elkan":
        bytes_ += 2.0 * n * k * s + 2.0 * n * s
    flops = 3.0 * d * evals + 2.0 * n * d  # distances (subtract, multiply, add) + the update's sums
    return bytes_, flops


def cpu_name():
    """The CPU's model name (Linux), for reports; every benchmark script uses this one."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def fmt_cell(value):
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.6g}"
    return value


def table(rows, columns, headers=None):
    """A markdown table of dict rows."""
    headers = headers or columns
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c)
            if isinstance(v, float):
                v = f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
            cells.append("" if v is None else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)
