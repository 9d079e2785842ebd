#!/usr/bin/env bash
# Task 2, second set: ball vs exponion to convergence, 1 thread, f64, CPU ms; order alternating.
b=/work/wt-solvers/build-cpu/bench/bench_solvers
i=0
for shape in ${SHAPES:-"100000 16 5000 blobs" "100000 16 5000 uniform" "100000 8 2500 blobs" "100000 8 2500 uniform" "100000 4 5000 uniform" "1000000 8 5000 blobs"}; do
  set -- $shape; i=$((i + 1))
  order="exponion ball"; [ $((i % 2)) = 0 ] && order="ball exponion"
  for s in $order; do
    line=$($b $1 $2 $3 300 1 seq $s f64 1 $4 | tail -1)
    echo "$4 n=$1 d=$2 k=$3 $s $(echo "$line" | awk '{print "cpu_ms", $10, "iters", $11, "dist", $4}')"
  done
done
