#!/usr/bin/env bash
# Reproduce: carry .devcarry-gpu/cli-old (the base) and cli-new (this build) and libs.tar.xz (their shared libraries), then run this on the device.
# A/B of Exponion's window (old: fixed; new: per thread) with 16 OpenMP threads; Hamerly beside.
set -uo pipefail
threads=${1:-16}
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $threads threads"
export LD_LIBRARY_PATH=$(mktemp -d)
tar -C "$LD_LIBRARY_PATH" -xJf .devcarry-gpu/libs.tar.xz lib; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH/lib
total() { python3 -c 'import sys, json
t = 0.0; i = 0; b = 0.0; a = 0.0
for line in sys.stdin:
    if line.startswith("{\"type\":\"iteration\""): x = json.loads(line); t += x["time_total_ms"]; a += x["time_assign_ms"]; b += x["time_bounds_ms"]; i += 1
print(f"{t:.0f} ms (assign {a:.0f}, bounds {b:.0f}) /{i} it")'; }
for shape in "1000000 2 100" "1000000 2 1000" "1000000 16 100" "1000000 16 1000"; do
  read -r n d k <<<"$shape"
  for rep in 1 2; do
    line="n=$n d=$d k=$k rep $rep:"
    for v in "hamerly new" "exponion new" "exponion old"; do
      read -r s which <<<"$v"
      r=$(.devcarry-gpu/cli-$which run --generate "blobs:n=$n,k=$k,d=$d" --seed 7 --k "$k" --init random --tol 0 --max-iter 100 \
          --backend omp --threads "$threads" --precision f64 --solver "$s" --report json 2>/dev/null | total)
      line="$line | $s-$which $r"
    done
    echo "$line"
  done
done
