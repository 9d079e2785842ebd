#!/usr/bin/env bash
# Session 11, call 1 (one H100): main as landed (c78c5cd) on the GPU first — the GPU suites' small
# cases in lanes (device_session10_verify.sh) — then issue 42's streamed Hamerly against streamed
# Lloyd at 10^9 x 4 (device_session10_streamed.sh) with the GPU alone. Summaries to stdout.
# Usage: OUT=DIR docs/lab/device-scripts/device_session11_call1.sh
set -uo pipefail
here=$(dirname "$0"); start=$SECONDS
OUT=${OUT:-./device-out}/verify "$here/device_session10_verify.sh"
echo "== verify took $((SECONDS - start)) s"
KMS_STREAM_BUDGET=$(( ${KMS_CALL_BUDGET:-560} - (SECONDS - start) - 140 )) OUT=${OUT:-./device-out}/streamed "$here/device_session10_streamed.sh"
echo "== call took $((SECONDS - start)) s"
