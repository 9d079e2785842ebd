#!/usr/bin/env bash
b=/work/wt-solvers/build-cpu/bench/bench_solvers
while [ "$(grep -c '^blobs n=1000000' /tmp/solvers-conv2.txt)" -lt 2 ]; do sleep 2; done
i=0
for run in "100000 4 5000 blobs ball,exponion,hamerly" "100000 4 5000 uniform hamerly" "100000 4 1000 uniform ball,exponion" "100000 4 1000 blobs ball,exponion" "100000 4 5000 blobs ball,exponion"; do
  set -- $run; i=$((i+1))
  for s in $(echo $5 | tr , ' '); do
    line=$($b $1 $2 $3 300 1 seq $s f64 1 $4 | tail -1)
    echo "$4 n=$1 d=$2 k=$3 $s $(echo "$line" | awk '{print "cpu_ms", $10, "iters", $11, "dist", $4}')"
  done
done
