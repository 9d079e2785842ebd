#!/usr/bin/env bash
# Run record (2026-11-27): is a late step bound by the host's launches? A probe build
# prints, per step, the host's time from the step's start to its last queued call
# (host_launch), the record's copy to pageable memory (copy), the wait in the final
# synchronisation (wait) and the stream's step time (gpu, the CLI's time_total). Medians over the steps asked for.
set -uo pipefail
source "$(dirname "$0")/../../device-scripts/device_common.sh"
run() {  # N D K ITER SOLVER FROM TO
  local data=/dev/shm/kms-late-$1-$2.npy
  [ -f "$data" ] || "$cli" generate --generate "blobs:n=$1,d=$2,k=100" --seed 7 --out "$data" > /dev/null || return
  env KMS_PROBE_HOST=1 ${spin:+KMS_PROBE_SPIN=$spin} "$cli" run --input "$data" --k "$3" --solver "$5" --backend cuda --precision f32 --init random \
    --seed 3 --max-iter "$4" --tol 0 --report json > "$work/h.txt" 2>&1 < /dev/null
  python3 - "$work/h.txt" "$6" "$7" "$5 n=$1 d=$2 k=$3 steps $6-$7 spin=$spin" <<'PY'
import statistics, sys
path, lo, hi, label = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = [l.split() for l in open(path) if l.startswith("PROBE host_launch_us")]
rows = rows[lo - 1:hi]
m = lambda i: statistics.median(float(r[i]) for r in rows)
print(f"{label:<40} host_launch {m(2):7.1f} us  copy {m(4):7.1f}  wait {m(6):5.1f}  gpu step {m(8):7.1f}  to end {m(10):7.1f}")
PY
}
# KMS_PROBE_SPIN=US: a kernel holds the stream US microseconds at each step's start, before
# the step's start event, so that the step's time excludes waits for the host's launches.
for spin in 0 300; do
[ "$spin" = 0 ] && spin=
for solver in exponion hamerly lloyd; do run 1000000 2 1000 300 $solver 151 300; run 1000000 2 1000 300 $solver 2 12; done
for solver in hamerly exponion lloyd; do run 10000000 2 100 150 $solver 100 150; run 10000000 2 100 150 $solver 2 12; done
done
