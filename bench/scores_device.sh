#!/usr/bin/env bash
# The CUDA silhouette test and benchmark on the lent GPU machine (docs/scores.md).
# Built here first (build-scores-cuda), then copied with the Qt run-time libraries
# into .carry/scores: test_gpu_scores, bench_scores, qtlibs.tar.xz, lib/. Logs go to $OUT.
set -u -o pipefail
here=.carry/scores
out=${OUT:-/tmp/scores-out}
mkdir -p "$out" /tmp/kms-lib
tar xJf $here/qtlibs.tar.xz -C /tmp/kms-lib
export LD_LIBRARY_PATH=/tmp/kms-lib:$PWD/$here/lib:${LD_LIBRARY_PATH:-}
{ nvidia-smi -L; lscpu | grep 'Model name'; nproc; } | tee "$out/device.txt"
ldd $here/test_gpu_scores $here/bench_scores | grep 'not found'
timeout 240 $here/test_gpu_scores 2>&1 | tee "$out/test_gpu_scores.log" | grep -E 'PASS|FAIL|SKIP|Totals|Loc'
timeout 200 $here/bench_scores --gpu 1 --threads 16 --repeats 3 --data-out /tmp/b100k 2>&1 | tee "$out/bench_device.jsonl"
timeout 140 python3 bench/scores_sklearn.py /tmp/b100k 100000 2 1 "$(lscpu | sed -n 's/Model name: *//p')" 2>&1 |
    tee "$out/sklearn_device.jsonl"
