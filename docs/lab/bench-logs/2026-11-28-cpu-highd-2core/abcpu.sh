#!/bin/bash
# CPU ms per Lloyd step, 1 thread: (CPU of 1+S steps − CPU of 1 step) / S. usage: abcpu.sh DATA INIT K S REPS
DATA=$1; INIT=$2; K=$3; S=$4; REPS=$5
BASE=${BASE:-/tmp/cpu37/basewt/build/app/kmeans-cli}; NEW=${NEW:-build-cpu/app/kmeans-cli}  # main (080d28d) and this branch
cpu() { /usr/bin/time -f "%U %S" -o /tmp/abcpu.$$ env OMP_WAIT_POLICY=passive $1 run --input $DATA --k $K --init $INIT --solver lloyd --precision $2 --backend omp --threads 1 --max-iter $3 --tol 0 --report json > /dev/null 2>&1; awk '{print $1+$2}' /tmp/abcpu.$$; }
for r in $(seq $REPS); do for p in f32 f64; do for b in base new; do
  B=$BASE; [ $b = new ] && B=$NEW
  one=$(cpu $B $p 1); many=$(cpu $B $p $((S+1)))
  echo "$DATA $K $p $b $(echo "($many - $one) * 1000 / $S" | bc -l | xargs printf '%.1f')"
done; done; done
