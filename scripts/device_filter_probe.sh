root=$PWD; w=$(mktemp -d); tar -C $w -xJf $root/.devcarry-gpu/pack.tar.xz; export LD_LIBRARY_PATH=$w/lib; cli=$w/bin/kmeans-cli
for spec in uniform:n=1000000,d=64:1000 uniform:n=500000,d=200:128 blobs:n=1000000,d=64,k=100:1000 blobs:n=500000,d=200,k=100:128; do g=${spec%:*}; k=${spec##*:}; $cli generate --generate $g --seed 7 --out $w/x.npy >/dev/null
 for f in on off; do $cli run --input $w/x.npy --k $k --backend cuda --variant shared --int8-filter $f --precision f32 --init random --seed 3 --max-iter 20 --tol 0 --report json > $w/r-$f.jsonl; done
 python3 - $w/r-on.jsonl $w/r-off.jsonl "$g k=$k" <<'PY'
import json,sys,statistics
def its(p): return [r for r in map(json.loads, open(p)) if r['type']=='iteration']
on, off, name = its(sys.argv[1]), its(sys.argv[2]), sys.argv[3]
print(f"== {name}: filter on  per step (assign ms / verified): " + " ".join(f"{r['time_assign_ms']:.2f}/{r['verified_points']}" for r in on))
print(f"   filter on: total assign {sum(r['time_assign_ms'] for r in on):.1f} ms, median {statistics.median(r['time_assign_ms'] for r in on[2:]):.3f}; filter off: total {sum(r['time_assign_ms'] for r in off):.1f} ms, median {statistics.median(r['time_assign_ms'] for r in off[2:]):.3f}; same labels changed per step: {[r['labels_changed'] for r in on]==[r['labels_changed'] for r in off]}")
PY
done
