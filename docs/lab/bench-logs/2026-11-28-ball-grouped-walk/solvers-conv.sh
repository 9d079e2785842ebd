#!/usr/bin/env bash
# Task 2: exponion, shallot, ball to convergence (tol 0: no label changes; cap CAP), 1 thread, f64,
# CPU ms of the fit (bench_solvers cpu_ms), solvers interleaved, order rotated per repeat.
b=/work/wt-solvers/build-cpu/bench/bench_solvers; cap=${CAP:-300}
for rep in $(seq ${REPS:-2}); do
  for shape in ${SHAPES:-"100000 2 1000 blobs" "100000 2 5000 blobs" "100000 8 1000 blobs" "100000 8 5000 blobs" "100000 2 5000 uniform" "100000 8 5000 uniform"}; do
    set -- $(echo $shape | tr _ ' ')
    order="exponion shallot ball"; [ $((rep % 2)) = 0 ] && order="ball shallot exponion"; [ $2 = 2 ] && order="$order hamerly"
    for s in $order; do
      line=$($b $1 $2 $3 $cap 1 seq $s f64 1 $4 | tail -1)
      echo "$rep $4 n=$1 d=$2 k=$3 $s $(echo "$line" | awk '{print "cpu_ms", $10, "iters", $11, "dist", $4}')"
    done
  done
done
