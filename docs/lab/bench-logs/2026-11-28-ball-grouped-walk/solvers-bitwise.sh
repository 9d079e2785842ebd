#!/usr/bin/env bash
# Old vs new kmeans-cli: every iteration record except the times, ball, f64 and f32, seq and omp(2).
new=/work/wt-solvers/build-cpu/app/kmeans-cli; old=/tmp/solvers-old/kmeans-cli
for spec in "blobs:n=20000,k=100,d=2 1000" "uniform:n=20000,d=8 1000" "blobs:n=20000,k=100,d=32 500" "uniform:n=30000,d=2 3000" "blobs:n=10000,k=30,d=12 400" "blobs:n=40000,k=10,d=3 60" "uniform:n=30000,d=8 50" "blobs:n=50000,k=50,d=2 300"; do
  set -- $spec
  for p in f64 f32; do for be in "seq" "omp --threads 2"; do
    for b in old new; do exe=$old; [ $b = new ] && exe=$new
      $exe run --generate $1 --seed 3 --k $2 --init random --solver ball --precision $p --backend $be --max-iter 25 --tol 0 --report json \
        | python3 -c 'import sys,json
for l in sys.stdin:
    r=json.loads(l)
    if r.get("type")=="iteration": print({k:v for k,v in r.items() if not k.startswith("time")})
    elif r.get("type")=="summary": print(r["inertia"], r["iterations"])' > /tmp/solvers-bw-$b.txt
    done
    cmp -s /tmp/solvers-bw-old.txt /tmp/solvers-bw-new.txt && echo "same: $1 k=$2 $p $be ($(wc -l < /tmp/solvers-bw-new.txt) records)" || echo "DIFFER: $1 k=$2 $p $be"
  done; done
done
