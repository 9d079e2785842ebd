#!/usr/bin/env bash
# On the lent device machine's CPU (16 cores, which this 2-core VM lacks): our CPU
# solvers with OpenMP threads against scikit-learn with the same threads
# (bench/cpu_vs_sklearn.py, per iteration), and each solver to convergence.
# Usage: docs/lab/device-scripts/device_cpu_threads.sh [THREADS]   (default: every core)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
threads=${1:-$(nproc)}
{ echo "# $(date -u +%FT%TZ) $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores visible, $threads threads"; } | tee "$out/cpu-threads.txt"
for shape in "1000000 2 100" "1000000 2 1000" "1000000 16 100"; do
  read -r n d k <<<"$shape"
  timeout 400 python3 "$root/bench/cpu_vs_sklearn.py" --cli "$cli" --n "$n" --d "$d" --k "$k" --threads "$threads" \
    --iterations 10 --repeats 2 --out "$out/vs-sklearn-$n-$d-$k.md" > "$out/vs-sklearn-$n-$d-$k.log" 2>&1
  echo "== per iteration, $n x $d, k = $k (exit $?)" | tee -a "$out/cpu-threads.txt"
  grep "^|" "$out/vs-sklearn-$n-$d-$k.md" 2>/dev/null | tee -a "$out/cpu-threads.txt"
done
echo "== to convergence (blobs, --init random --seed 7, tol 0, cap 100; sum of time_total_ms)" | tee -a "$out/cpu-threads.txt"
for shape in "1000000 2 100" "1000000 2 1000" "1000000 16 100" "1000000 16 1000"; do
  read -r n d k <<<"$shape"
  line="n=$n d=$d k=$k:"
  for s in lloyd hamerly exponion yinyang; do
    r=$(OMP_WAIT_POLICY=active "$cli" run --generate "blobs:n=$n,k=$k,d=$d" --seed 7 --k "$k" --init random --tol 0 --max-iter 100 \
        --backend omp --threads "$threads" --precision f64 --solver "$s" --report json 2>/dev/null | python3 -c 'import sys, json
t = 0.0; i = 0
for line in sys.stdin:
    if line.startswith("{\"type\":\"iteration\""): x = json.loads(line); t += x["time_total_ms"]; i += 1
print(f"{t:.0f} ms/{i} it")')
    line="$line $s $r;"
  done
  echo "$line" | tee -a "$out/cpu-threads.txt"
done
