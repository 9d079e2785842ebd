#!/usr/bin/env python3
"""PyTorch's Lloyd step on the GPU, for the device scripts that set our CUDA step against it
(docs/lab/device-scripts/device_lowd.sh, docs/lab/device-scripts/device_smallk.sh): the same points (.npy, made float32
as our f32 runs read them; the generator writes float64) and initial centroids, TF32 off (exact FP32 products), median of CUDA-event-timed steps after
warm-up. Forms: torch.cdist or the matmul form ||c||^2 - 2 x.c for the distances, argmin,
then index_add_ (or a one-hot matmul) for the sums; and torch.compile of the matmul forms
(dynamic shapes, compiled once a process).

  torch_step.py X.npy K                  one line: best form, every form, the floor
  torch_step.py --jobs FILE [--json OUT] every job of FILE (lines "NAME X.npy C0.npy [OURS]",
                                         OURS a JSON object of our times), then one table
"""
import json
import os
import statistics
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "suites"))
from harness import median_step_ms  # noqa: E402  (the suites' PyTorch step timer)

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


def update(x, labels, c):
    sums = torch.zeros_like(c).index_add_(0, labels, x)
    counts = torch.bincount(labels, minlength=c.shape[0]).to(c.dtype).unsqueeze(1)
    return torch.where(counts > 0, sums / counts.clamp_min(1), c)


def update_onehot(x, labels, c):
    onehot = torch.nn.functional.one_hot(labels, c.shape[0]).to(x.dtype)
    sums = onehot.T @ x
    counts = onehot.sum(0).unsqueeze(1)
    return torch.where(counts > 0, sums / counts.clamp_min(1), c)


def matmul_labels(x, c):
    return ((c * c).sum(1)[None, :] - 2.0 * (x @ c.T)).argmin(dim=1)


def step_cdist(x, c):
    return update(x, torch.cdist(x, c).argmin(dim=1), c)


def step_matmul(x, c):
    return update(x, matmul_labels(x, c), c)


def step_onehot(x, c):
    return update_onehot(x, matmul_labels(x, c), c)


FORMS = {"cdist": step_cdist, "matmul": step_matmul, "matmul-onehot": step_onehot,
         "compile-matmul": torch.compile(step_matmul, dynamic=True),
         "compile-onehot": torch.compile(step_onehot, dynamic=True)}


def time_forms(x, c0, warmup=3, repeats=15):
    """Median ms a step of every form that runs (a form that fails is left out)."""
    done = {}
    for name, step in FORMS.items():
        try:
            done[name] = median_step_ms(step, x, c0.clone(), warmup, repeats)
        except Exception as error:  # noqa: BLE001 - report and go on
            print(f"  {name} failed: {error}", file=sys.stderr)
            torch.cuda.empty_cache()
    return done


def copy_rate():
    """Device-to-device copy, bytes read + written per second (median of 20 copies of 1 GiB)."""
    a = torch.empty(1 << 28, dtype=torch.float32, device="cuda").uniform_()
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    times = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        b.copy_(a)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    del a, b
    torch.cuda.empty_cache()
    return 2 * (1 << 30) / statistics.median(times)


def one(path, k):
    """device_lowd.sh's line: initial centroids k random rows (seed 3), FP32 and memory floors."""
    x = torch.from_numpy(np.load(path)).float().cuda()  # float32, as ours (the generator writes float64)
    n, d = x.shape
    c0 = x[torch.randperm(n, generator=torch.Generator().manual_seed(3))[:k].cuda()].clone()
    done = time_forms(x, c0)
    best = min(done, key=done.get)
    fp32 = 2 * n * k * d / 65.2e12 * 1e3
    memory = n * (d + 1) * 4 / 3014e9 * 1e3
    print(f"torch best {best} {done[best]:.3f} (" + ", ".join(f"{m} {v:.3f}" for m, v in done.items()) +
          f") | floor {max(fp32, memory):.4f} ms (FP32 {fp32:.4f}, memory {memory:.4f})")


def jobs(path, json_out):
    rate = copy_rate()
    print(f"device-to-device copy: {rate / 1e9:.0f} GB/s (read + written)", flush=True)
    rows = []
    for line in open(path):
        name, x_path, c_path, *rest = line.split(maxsplit=3)
        ours = json.loads(rest[0]) if rest else {}
        x = torch.from_numpy(np.load(x_path)).float().cuda()  # float32, as ours
        c0 = torch.from_numpy(np.load(c_path)).float().cuda()
        n, d = x.shape
        done = time_forms(x, c0)
        best = min(done, key=done.get) if done else None
        floor = n * d * x.element_size() / rate * 1e3  # the points read once
        rows.append({"name": name, "n": n, "d": d, "k": c0.shape[0], "torch": done, "torch_best": best,
                     "floor_ms": floor, "ours": ours})
        print(json.dumps(rows[-1]), flush=True)
        del x, c0
        torch.cuda.empty_cache()
    if json_out:
        json.dump({"copy_rate": rate, "rows": rows}, open(json_out, "w"), indent=1)
    print("\n| data, d, k | ours before | ours now (assign + update) | PyTorch best | ÷ PyTorch | ÷ floor | floor |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ours, best = r["ours"], r["torch_best"]
        new, old = ours.get("new", {}), ours.get("old", {})
        torch_ms = r["torch"].get(best, float("nan")) if best else float("nan")
        now = new.get("total", float("nan"))
        print(f"| {r['name']} | {old.get('total', float('nan')):.3f} | {now:.3f} ({new.get('assign', float('nan')):.3f}"
              f" + {new.get('update', float('nan')):.3f}) | {torch_ms:.3f} ({best}) | {torch_ms / now:.2f}x |"
              f" {now / r['floor_ms']:.2f}x | {r['floor_ms']:.4f} |")


if __name__ == "__main__":
    if sys.argv[1] == "--jobs":
        jobs(sys.argv[2], sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--json" else None)
    else:
        one(sys.argv[1], int(sys.argv[2]))
