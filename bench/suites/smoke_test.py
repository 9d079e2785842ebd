#!/usr/bin/env python3
"""CI smoke test of the benchmark suites: each suite's --quick run on the CPU writes
results.csv (with every required column and at least one row), results.jsonl (the
same rows) and report.md (with the machine facts), and the plots it promises. It
asserts files and columns, never speeds.

usage: smoke_test.py BUILD_DIR [SUITE ...]"""
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import COLUMNS  # noqa: E402

REQUIRED = ["suite", "dataset", "n", "d", "k", "solver", "backend", "precision", "threads", "block_size",
            "iterations", "ms_per_iter_median", "ms_per_iter_min", "ms_per_iter_max", "time_to_converge_s",
            "distance_evals", "skip_rate", "inertia", "gbps", "gflops", "floor_ms", "x_floor", "peer",
            "peer_ms_per_iter", "x_peer"]
PLOTS = {"thesis": ["init-study.png"], "zechner": ["zechner.png"], "pisa": ["pisa-threads.png"], "map": ["map.png"]}


def check(suite, build, root):
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([os.path.join(root, "scripts", "bench.sh"), suite, "--quick", "--cpu-only", "--out", out],
                             env=dict(os.environ, KMS_BUILD_DIR=build), capture_output=True, text=True)
        assert run.returncode == 0, f"{suite}: exit {run.returncode}\n{run.stderr[-2000:]}"
        with open(os.path.join(out, "results.csv")) as f:
            reader = csv.DictReader(f)
            missing = [c for c in REQUIRED if c not in reader.fieldnames]
            assert not missing, f"{suite}: results.csv lacks {missing}"
            rows = list(reader)
        assert rows, f"{suite}: results.csv has no rows"
        for row in rows:
            assert row["suite"] == suite, f"{suite}: row of suite {row['suite']}"
            assert float(row["ms_per_iter_median"]) > 0, f"{suite}: a row without a time: {row}"
            assert row["floor_ms"] and float(row["x_floor"]) > 0, f"{suite}: a row without a floor: {row}"
        with open(os.path.join(out, "results.jsonl")) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        assert len(lines) == len(rows), f"{suite}: {len(lines)} JSON lines for {len(rows)} CSV rows"
        assert set(COLUMNS) <= set(lines[0]), f"{suite}: JSON rows lack columns"
        report = open(os.path.join(out, "report.md")).read()
        for fact in ("| cpu |", "| cores |", "| scikit-learn |", "| date |", "Measured ceilings"):
            assert fact in report, f"{suite}: report.md lacks {fact}"
        for plot in PLOTS.get(suite, []):
            assert os.path.getsize(os.path.join(out, plot)) > 1000, f"{suite}: {plot} missing or empty"
        print(f"{suite}: {len(rows)} rows, report and plots present", flush=True)


def main():
    build = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for suite in sys.argv[2:] or ["thesis", "he", "zechner", "pisa", "map"]:
        check(suite, build, root)


if __name__ == "__main__":
    main()
