#!/usr/bin/env python3
"""Recompute a results folder's traffic-derived columns (gbps, gflops, floor_ms, x_floor)
with the harness's current traffic model and given ceilings, and redraw its map plot.
For results measured before a model change (docs/benchmarks.md says which).

usage: refloor.py DIR --read-gbs X --mix-gflops Y   (CPU rows: memory read, op-mix ceiling)
                      [--copy-gbs X --fp32-tflops Y] (GPU rows: device copy, FP32 FMA)"""
import argparse
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import COLUMNS, fmt_cell, traffic  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--read-gbs", type=float)
    p.add_argument("--mix-gflops", type=float)
    p.add_argument("--copy-gbs", type=float)
    p.add_argument("--fp32-tflops", type=float)
    a = p.parse_args()
    rows = [json.loads(line) for line in open(os.path.join(a.dir, "results.jsonl")) if line.strip()]
    for r in rows:
        bytes_, flops = traffic(r["solver"], r["n"], r["d"], r["k"], r["precision"], r["distance_evals"])
        ms = r["ms_per_iter_median"]
        if r["backend"].startswith("cuda"):
            floor = 1e3 * max(bytes_ / (a.copy_gbs * 1e9), flops / (a.fp32_tflops * 1e12 / 2))
        else:
            floor = 1e3 * max(bytes_ / (a.read_gbs * 1e9), flops / (a.mix_gflops * 1e9))
        r.update(gbps=bytes_ / (ms * 1e6), gflops=flops / (ms * 1e6), floor_ms=floor, x_floor=ms / floor)
        r["kind"] = r["dataset"].split(":")[0]
    with open(os.path.join(a.dir, "results.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(a.dir, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for r in rows:
            writer.writerow({c: fmt_cell(r.get(c)) for c in COLUMNS})
    print(f"{len(rows)} rows refloored in {a.dir}")
    if all(r["suite"] == "map" for r in rows):
        redraw_map(a.dir)


def redraw_map(folder):
    """map.png from a map folder's results.jsonl (the shapes it holds)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from suites import draw_map
    rows = [json.loads(line) for line in open(os.path.join(folder, "results.jsonl")) if line.strip()]
    for r in rows:
        r.setdefault("kind", r["dataset"].split(":")[0])
    ns = tuple(sorted({r["n"] for r in rows}))
    ds = tuple(sorted({r["d"] for r in rows}))
    ks = tuple(sorted({r["k"] for r in rows}))
    kinds = tuple(sorted({r["kind"] for r in rows}))
    fig = draw_map(plt, rows, ns, ds, ks, kinds)
    fig.savefig(os.path.join(folder, "map.png"), dpi=110, bbox_inches="tight")


if __name__ == "__main__":
    main()
