#!/usr/bin/env bash
# Session 13: issue 42's "streamed Hamerly at 10^9 x 4 on one H100: faster to convergence than streamed
# Lloyd" at k = 1000, run towards convergence (sklearn's tol 1e-4, at most KMS_STREAM_ITER_1000 steps),
# Hamerly then Lloyd (device_session10_streamed.sh; the pack: .devcarry-c12). About 460 s.
cd "$(dirname "$0")/../../.."
mkdir -p $OUT/streamed
KMS_DEVICE_CARRY=.devcarry-c12 KMS_STREAM_ITER_1000=${KMS_STREAM_ITER_1000:-150} KMS_STREAM_BUDGET=${KMS_STREAM_BUDGET:-280} \
  OUT=$OUT/streamed bash docs/lab/device-scripts/device_session10_streamed.sh 2>&1 | tee $OUT/streamed.txt | tail -c 4000
