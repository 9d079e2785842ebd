#!/bin/bash
# ab.sh REPS spec... (label:bin:solver): per repetition each label's assign+bounds and total,
# and the median of its ratio to the first spec's in the same repetition.
reps=$1; shift
n=${N:-100000}; k=${K:-100}; d=${D:-2}; th=${TH:-seq}
tmp=$(mktemp -d)
for r in $(seq $reps); do
 for spec in "$@"; do
  IFS=: read label bin s <<< "$spec"
  $bin run --generate blobs:n=$n,k=$k,d=$d --k $k --seed 7 --tol 0 --backend $th --solver $s --init random --report json > $tmp/$label.json 2>/dev/null
  python3 -c "
import json
its=[json.loads(l) for l in open('$tmp/$label.json')]
its=[i for i in its if i['type']=='iteration']
t=lambda k: sum(i[k] for i in its)
print($r, '$label', len(its), '%.2f %.2f' % (t('time_assign_ms')+t('time_bounds_ms'), t('time_total_ms')))"
 done
done | python3 -c "
import sys,collections,statistics
rows=collections.defaultdict(dict); order=[]; its={}
for l in sys.stdin:
    r,lab,it,a,t=l.split(); rows[r][lab]=(float(a),float(t)); its[lab]=it
    if lab not in order: order.append(lab)
ref=order[0]
for lab in order:
    ra=[v[lab][0]/v[ref][0] for v in rows.values()]; rt=[v[lab][1]/v[ref][1] for v in rows.values()]
    a=[v[lab][0] for v in rows.values()]; t=[v[lab][1] for v in rows.values()]
    print('  %-6s its=%s assign+bounds min %.1f med %.1f (x%.3f) | total min %.1f med %.1f (x%.3f [%.3f..%.3f])' % (lab,its[lab],min(a),statistics.median(a),statistics.median(ra),min(t),statistics.median(t),statistics.median(rt),min(rt),max(rt)))
"
