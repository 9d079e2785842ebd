#!/usr/bin/env bash
# Elkan against Hamerly and Lloyd, out of core and loaded (issue 42, session 12): one .npy,
# kmeans-cli run --init random --seed 1 --max-iter 12 --tol 0 --threads 2, --out-of-core on
# --memory-limit 900M (the blocks: at most 64 MiB each) or --out-of-core off. Prints, per run,
# the median step (total_ms) and assignment over steps 3-12 and the distances of those steps,
# then the centroid files' checksums (all equal: the solvers are exact).
# usage: elkan_ooc.sh KMEANS_CLI GENERATE_SPEC K [REPEATS]   (in a scratch folder)
# e.g.   elkan_ooc.sh build-rel/app/kmeans-cli blobs:n=1000000,k=64,d=32 64 3
set -euo pipefail
cli=$1 spec=$2 k=$3 reps=${4:-1}
"$cli" generate --generate "$spec" --seed 7 --out x.npy > /dev/null
for rep in $(seq "$reps"); do
  for mode in ooc loaded; do
    for s in lloyd hamerly elkan; do
      extra=(--out-of-core on --memory-limit 900M)
      [ $mode = loaded ] && extra=(--out-of-core off)
      "$cli" run --input x.npy --k "$k" --solver $s --init random --seed 1 --max-iter 12 --tol 0 --threads 2 \
        --backend omp "${extra[@]}" --centroids-out "c-$s-$mode.txt" > "out-$rep-$mode-$s.txt" 2>&1
      uptime | sed 's/.*load/load/' >> "out-$rep-$mode-$s.txt"
    done
  done
done
python3 - <<'PY'
import glob, re, statistics
for f in sorted(glob.glob("out-*.txt")):
    steps = [l.split() for l in open(f) if re.match(r"\s+\d+\s", l) and int(l.split()[0]) >= 3]
    load = open(f).read().strip().split("\n")[-1]
    print(f"{f:28s} median step {statistics.median(float(r[4]) for r in steps):7.1f} ms "
          f"(assign {statistics.median(float(r[1]) for r in steps):6.1f})  "
          f"distances steps 3-12 {sum(int(r[5]) for r in steps):.3g}  {load}")
PY
for f in c-*-*.txt; do echo "$(md5sum < "$f" | cut -c1-8) $f"; done
