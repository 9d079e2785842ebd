#!/usr/bin/env bash
# Ball k-means old (scalar walk) vs new (block walk): CPU ms of the fit, 1 thread, f64, n = 10^5,
# ITERS iterations (tol 0), interleaved, order alternating per repeat. Exponion (unchanged) from the new build.
new=/work/wt-solvers/build-cpu/bench/bench_solvers; old=/tmp/solvers-old/bench_solvers
iters=${ITERS:-20}; reps=${REPS:-3}
for rep in $(seq $reps); do
  for data in blobs uniform; do for d in 2 8 32; do for k in 1000 5000; do
    [ "$data $d $k" = "uniform 32 5000" ] && continue  # 25 s a run here: left out
    order="old new"; [ $((rep % 2)) = 0 ] && order="new old"
    for b in $order exponion; do
      exe=$new; solver=ball; [ $b = old ] && exe=$old; [ $b = exponion ] && solver=exponion
      line=$($exe 100000 $d $k $iters 1 seq $solver f64 1 $data | tail -1)
      echo "$rep $data $d $k $b $(echo "$line" | awk "{print \$10, \$11, \$4, \$8}")"
    done
  done; done; done
done
