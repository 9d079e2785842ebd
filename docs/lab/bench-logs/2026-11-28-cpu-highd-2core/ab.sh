#!/bin/bash
# usage: ab.sh DATA INIT K THREADS ITERS REPS  -> per run: bin precision median total/assign/update
DATA=$1; INIT=$2; K=$3; TH=$4; IT=$5; REPS=$6
BASE=${BASE:-/tmp/cpu37/basewt/build/app/kmeans-cli}; NEW=${NEW:-build-cpu/app/kmeans-cli}  # main (080d28d) and this branch
for r in $(seq $REPS); do for p in f32 f64; do for b in base new; do
  B=$BASE; [ $b = new ] && B=$NEW
  OMP_WAIT_POLICY=passive $B run --input $DATA --k $K --init $INIT --solver lloyd --precision $p --backend omp --threads $TH --max-iter $IT --tol 0 --report json --labels-out /tmp/ab_l_${b}_$p.txt --centroids-out /tmp/ab_c_${b}_$p.csv 2>/dev/null | /usr/bin/python3 -c "
import sys,json,statistics as st
s=[json.loads(l) for l in sys.stdin if l.strip()]; it=[r for r in s if r['type']=='iteration']
m=lambda k: st.median(r[k] for r in it)
print('$b $p total %.1f assign %.1f update %.1f verified %d' % (m('time_total_ms'), m('time_assign_ms'), m('time_update_ms'), sum(r['verified_points'] for r in it)))"
done; cmp -s /tmp/ab_c_base_$p.csv /tmp/ab_c_new_$p.csv && echo "  centroids identical $p" || echo "  CENTROIDS DIFFER $p"; done; done
