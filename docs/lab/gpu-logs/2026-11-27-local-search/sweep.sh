#!/usr/bin/env bash
# Each variant's CLI (.devcarry-gpu/variants/cli-*.xz, built with other constants:
# the local search's points a slot R and least centroids a lane M; the low-d search's
# resident factor F) against the base, median step of steps 21-60 (f32, blobs; in parentheses the mean
# distance evaluations a step, millions), and the points listed per step.
# Usage: sweep.sh "N D K [SOLVER]"...   (from the repository root; SOLVER: hamerly)
set -u
# Needs only the carried CLIs, not the pack.
work=$(mktemp -d)
carry="$PWD/${KMS_DEVICE_CARRY:-.devcarry-gpu}"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
xz -dc "$carry/base-cli.xz" > "$work/base" && chmod +x "$work/base"
exes=(base)
for v in "$carry"/variants/cli-*.xz; do
  name=$(basename "$v" .xz); xz -dc "$v" > "$work/$name" && chmod +x "$work/$name"; exes+=("$name")
done
median() {
  python3 -c "
import json,statistics,sys
it=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{\"type\":\"iteration\"')]
late=it[20:60]
print(f'{statistics.median(r[\"time_total_ms\"] for r in late)*1000:.1f}'
      f'({sum(r[\"point_centroid_distances\"] for r in late)/len(late)/1e6:.1f}M)')" "$1"
}
for shape in "$@"; do
  set -- $shape
  data=/dev/shm/kms-t-$1-$2.npy
  [ -f "$data" ] || "$work/base" generate --generate blobs:n=$1,d=$2,k=100 --seed 7 --out "$data" > /dev/null
  solver=${4:-hamerly}
  line="$solver n=$1 d=$2 k=$3:"
  for rep in 1 2; do
    for e in "${exes[@]}"; do
      "$work/$e" run --input "$data" --k $3 --solver $solver --backend cuda --precision f32 --init random --seed 3 --tol 0 \
        --max-iter 60 --report json > /dev/shm/t.json 2>&1
      line="$line $e $(median /dev/shm/t.json)"
    done
  done
  echo "$line"
  python3 -c "
import json,sys
it=[json.loads(l) for l in open('/dev/shm/t.json') if l.startswith('{\"type\":\"iteration\"')]
print('  listed (n - skips) at steps 2, 20, 40, 60:', [$1 - it[s-1]['bound_skips'] for s in (2, 20, 40, 60)])"
done
