#!/usr/bin/env python3
"""The peers of issue 37's high-d map on the GPU (docs/lab/device-scripts/device_highd.sh): for every job line
"NAME X.npy C0.npy OURS" (OURS a JSON object: our configurations' step medians), the same
points (float32) and initial centroids through

  - PyTorch, exact FP32 (TF32 off): the best of torch_step.py's forms (eager and compiled);
  - PyTorch compiled with TF32 matmuls (inexact: its wrong labels are counted);
  - flash-kmeans (its public Triton source, carried beside the run, never committed): one
    Lloyd iteration (its assignment + sorted centroid update) with float32 inputs (tl.dot in
    TF32) and with float16 inputs, when the module imports;

each peer's wrong labels of one assignment to C0 counted against the float64 assignment to the
same centroids. Prints one JSON line a job, then the table (ms per step, medians).

  highd_peers.py --jobs FILE [--json OUT] [--flash DIR]
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# torch_step sets TF32 off; its forms are the exact-FP32 peers.
from torch_step import copy_rate, matmul_labels, time_forms, update  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "suites"))
from harness import median_step_ms  # noqa: E402


def exact_labels(x, c, rows=1 << 15):
    """The float64 assignment (the reference wrong labels are counted against)."""
    c64 = c.double()
    c_sq = (c64 * c64).sum(1)
    out = torch.empty(x.shape[0], dtype=torch.long, device=x.device)
    for r in range(0, x.shape[0], rows):
        xs = x[r:r + rows].double()
        out[r:r + rows] = ((xs * xs).sum(1)[:, None] - 2.0 * xs @ c64.T + c_sq[None, :]).argmin(1)
    return out


def tf32_peer(x, c0, reference):
    """PyTorch's compiled matmul step with TF32 allowed: median ms, wrong labels of one assignment."""
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.set_float32_matmul_precision("high")
    try:
        step = torch.compile(lambda x, c: update(x, matmul_labels(x, c), c), dynamic=True)
        ms = median_step_ms(step, x, c0.clone(), 3, 15)
        wrong = int((matmul_labels(x, c0) != reference).sum())
        return {"ms": ms, "wrong": wrong}
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")


def flash_peer(x, c0, reference, dtype):
    """flash-kmeans' iteration on x in `dtype`: median ms, wrong labels of one assignment."""
    from flash_kmeans.assign_euclid_triton import euclid_assign_triton
    from flash_kmeans.centroid_update_triton import triton_centroid_update_sorted_euclid
    xb = x.to(dtype)[None].contiguous()
    x_sq = (xb.float() ** 2).sum(-1)

    def step(xb, c):
        ids = euclid_assign_triton(xb, c, x_sq, use_heuristic=True)
        return triton_centroid_update_sorted_euclid(xb, ids, c)

    c = c0.to(dtype)[None].contiguous()
    ms = median_step_ms(step, xb, c.clone(), 3, 15)
    ids = euclid_assign_triton(xb, c, x_sq, use_heuristic=True)[0].long()
    return {"ms": ms, "wrong": int((ids != reference).sum())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", required=True)
    parser.add_argument("--json")
    parser.add_argument("--flash", help="the folder holding the flash_kmeans package")
    args = parser.parse_args()
    have_flash = False
    if args.flash:
        sys.path.insert(0, args.flash)
        try:
            import flash_kmeans.assign_euclid_triton  # noqa: F401
            have_flash = True
        except Exception as error:  # noqa: BLE001
            print(f"flash-kmeans does not import: {error}", file=sys.stderr)
    rate = copy_rate()
    print(f"device-to-device copy: {rate / 1e9:.0f} GB/s (read + written)", flush=True)
    rows = []
    for line in open(args.jobs):
        name, x_path, c_path, *rest = line.split(maxsplit=3)
        ours = json.loads(rest[0]) if rest else {}
        x = torch.from_numpy(np.load(x_path)).float().cuda()
        c0 = torch.from_numpy(np.load(c_path)).float().cuda()
        n, d = x.shape
        reference = exact_labels(x, c0)
        exact = time_forms(x, c0)
        best = min(exact, key=exact.get) if exact else None
        row = {"name": name, "n": n, "d": d, "k": c0.shape[0], "ours": ours, "torch_fp32": exact,
               "torch_fp32_best": best, "floor_ms": n * d * 4 / rate * 1e3}
        for label, peer in (("torch_tf32", lambda: tf32_peer(x, c0, reference)),
                            ("flash_tf32", lambda: flash_peer(x, c0, reference, torch.float32) if have_flash else None),
                            ("flash_fp16", lambda: flash_peer(x, c0, reference, torch.float16) if have_flash else None)):
            try:
                result = peer()
                if result:
                    row[label] = result
            except Exception as error:  # noqa: BLE001 - report and go on
                print(f"  {name}: {label} failed: {error}", file=sys.stderr)
            torch.cuda.empty_cache()
        rows.append(row)
        print(json.dumps(row), flush=True)
        del x, c0, reference
        torch.cuda.empty_cache()
    if args.json:
        json.dump({"copy_rate": rate, "rows": rows}, open(args.json, "w"), indent=1)
    configs = sorted({c for r in rows for c in r["ours"]})
    nan = float("nan")
    print("\nms per Lloyd step (medians; wrong labels of one assignment in brackets, of n)")
    print("| data, d, k | " + " | ".join(f"ours {c}" for c in configs) +
          " | PyTorch FP32 best | PyTorch TF32 (inexact) | flash TF32 | flash fp16 | best ours ÷ FP32 | ÷ flash TF32 | ÷ floor |")
    print("|---" * (len(configs) + 8) + "|")
    for r in rows:
        ours = {c: r["ours"][c].get("total", nan) for c in r["ours"]}
        best_ours = min((v for c, v in ours.items() if c != "exact"), default=nan)
        fp32 = r["torch_fp32"].get(r["torch_fp32_best"], nan) if r["torch_fp32_best"] else nan

        def peer(label):
            p = r.get(label)
            return f"{p['ms']:.3f} [{p['wrong']}]" if p else "—"
        flash = r.get("flash_tf32", {}).get("ms", nan)
        print(f"| {r['name']} | " + " | ".join(f"{ours.get(c, nan):.3f}" for c in configs) +
              f" | {fp32:.3f} | {peer('torch_tf32')} | {peer('flash_tf32')} | {peer('flash_fp16')} |"
              f" {fp32 / best_ours:.2f}x | {flash / best_ours:.2f}x | {best_ours / r['floor_ms']:.1f}x |")


if __name__ == "__main__":
    main()
