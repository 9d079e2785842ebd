#!/usr/bin/env bash
# Run record (2026-11-27): the grid sizes of the filter/bounds kernels (KMS_PROBE_FILTER,
# blocks per multiprocessor, 0 = one block per 256 points) and of the list-driven kernels
# (KMS_PROBE_LIST: the walks and the list searches, 0 = their old caps), per step over
# steps 2–12 and over whole runs. A probe build's switches; see README.md here.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
cfg=$(mktemp)
printf '%s\n' "1000 exponion - --solver exponion" > "$cfg.a"
printf '%s\n' "100 hamerly - --solver hamerly" "100 exponion - --solver exponion" "100 lloyd - --solver lloyd" > "$cfg.b"
for setting in "0 0" "4 0" "8 0" "16 0" "32 0" "0 1" "0 2" "0 4" "0 8" "8 2" "16 4"; do
  set -- $setting
  echo "== KMS_PROBE_FILTER=$1 KMS_PROBE_LIST=$2" | tee -a "${OUT:-device-out}/phases.txt"
  KMS_PROBE_FILTER=$1 KMS_PROBE_LIST=$2 KMS_PHASE_KIND=blobs KMS_PHASE_N=1000000 KMS_PHASE_D=2 KMS_PHASE_ITER=12 \
    docs/lab/device-scripts/device_phases.sh "$cfg.a" > /dev/null
  KMS_PROBE_FILTER=$1 KMS_PROBE_LIST=$2 KMS_PHASE_KIND=uniform KMS_PHASE_N=10000000 KMS_PHASE_D=2 KMS_PHASE_ITER=12 \
    docs/lab/device-scripts/device_phases.sh "$cfg.b" > /dev/null
done
for setting in "0 0" "4 1" "8 2" "16 4"; do
  set -- $setting
  echo "== late KMS_PROBE_FILTER=$1 KMS_PROBE_LIST=$2" | tee -a "${OUT:-device-out}/late-steps.txt"
  KMS_PROBE_FILTER=$1 KMS_PROBE_LIST=$2 KMS_LATE_N=1000000 KMS_LATE_K=1000 KMS_LATE_ITER=300 docs/lab/device-scripts/device_late_steps.sh exponion > /dev/null
  KMS_PROBE_FILTER=$1 KMS_PROBE_LIST=$2 KMS_LATE_N=10000000 KMS_LATE_K=100 KMS_LATE_ITER=150 docs/lab/device-scripts/device_late_steps.sh hamerly exponion > /dev/null
done
