#!/usr/bin/env bash
# One benchmark suite: scripts/bench.sh SUITE [--quick] [--out DIR] [--device-only|--cpu-only]
# SUITE: thesis | he | zechner | pisa | map | seeding | highd | solvers (docs/benchmarks.md says what each measures).
# Writes DIR/results.csv, DIR/results.jsonl, DIR/report.md and PNG plots (default DIR:
# bench-results/SUITE). Builds first when the binaries are missing (KMS_BUILD_DIR, default build);
# KMS_CLI / KMS_BENCH_CEILING / KMS_BENCH_CUDA point at binaries built elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KMS_BUILD_DIR:-build}
if [ -z "${KMS_CLI:-}" ] && { [ ! -x "$build/app/kmeans-cli" ] || [ ! -x "$build/bench/bench_ceiling" ] ||
                              { [ "${1:-}" = seeding ] && [ ! -x "$build/bench/bench_seeding" ]; }; }; then
  ./scripts/build.sh
fi
# A python3 with numpy (scikit-learn, matplotlib, PyTorch where present): Debian's first.
python=${KMS_PYTHON:-}
if [ -z "$python" ]; then
  for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c 'import numpy' 2>/dev/null; then python=$candidate; break; fi
  done
fi
if [ -z "$python" ]; then
  echo "bench: no python3 with numpy found (Debian: apt-get install python3-numpy python3-sklearn python3-matplotlib)" >&2
  exit 1
fi
PYTHONUNBUFFERED=1 exec "$python" bench/suites/suites.py "$@" --build "$build"
