#!/usr/bin/env bash
# Time per phase of kmeans-cli spectral (docs/spectral.md): generated moons (2-D) and
# He, Vialle & Baboulin's 4-D shape (he4d), one JSON summary per line on stdout.
#   bench/spectral_phases.sh [CLI] [THREADS] [SIZES...]     e.g. bench/spectral_phases.sh build/app/kmeans-cli 2 1e5 1e6
# EXTRA_ARGS (environment) is passed to every run, e.g. EXTRA_ARGS="--max-iter 20".
set -euo pipefail
cli=${1:-build/app/kmeans-cli}
threads=${2:-0}
shift 2 || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1e5 1e6)
labels=$(mktemp)
trap 'rm -f "$labels"' EXIT
for n in "${sizes[@]}"; do
  count=$(python3 -c "print(int(float('$n')))")
  for spec in "moons:n=$count,noise=0.05 --k 2" "he4d:n=$count --k 4"; do
    # shellcheck disable=SC2086  # the spec carries its --k
    "$cli" spectral --generate $spec --seed 1 --threads "$threads" --report json --labels-out "$labels" ${EXTRA_ARGS:-}
  done
done
