#!/usr/bin/env bash
# On the lent machine's CPU (issue 41's k-means‖ target, session 10): plain k-means++, bounded
# k-means++ and k-means‖ at 1, 6 and 16 threads (those up to nproc), n = 10^6 × 2 blobs and uniform,
# k = 1000, by bench/bench_seeding (`new`, this branch) and main a9b7ed5's seeding (`main`, carried
# as bin/bench_seeding-main: the same bench linked with main's bounded_nearest.cpp and
# kmeans_parallel.cpp). Seeding CPU and wall ms per seeding, interleaved new/main twice; then the final
# inertia after Lloyd (to convergence, tol 1e-4) from plain k-means++ and from k-means‖ for seeds 0-9
# on each data set; then whether k-means‖'s centres (their hash) agree across thread counts and with
# main's. The summary (medians, ratios against plain at 1 thread, the inertia gap) goes to stdout.
# Usage: OUT=DIR KMS_DEVICE_CARRY=.devcarry-A docs/lab/device-scripts/device_seeding_parallel.sh
# (about 150 s on 16 cores; KMS_BUDGET (s, default 215) stops starting runs after it; KMS_THREADS,
# KMS_SEEDS and KMS_N for a smaller trial; run it on cores of its own: it measures them)
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
new=$work/bin/bench_seeding
old=$work/bin/bench_seeding-main
budget=${KMS_BUDGET:-215}
cores=$(nproc)
echo "cores: $cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)); load: $(cut -d' ' -f1-3 /proc/loadavg)"
threads_list=""
for t in ${KMS_THREADS:-1 6 16}; do [ "$t" -le "$cores" ] && threads_list="$threads_list $t"; done
raw=$out/A-seeding.jsonl
: >"$raw"
over() { [ "$SECONDS" -ge "$budget" ] && { echo "budget of $budget s spent: the rest not run"; return 0; }; return 1; }
# bench LABEL BINARY ARGS...: its JSON lines, each with "build":LABEL, into $raw
bench() {
  local label=$1 exe=$2
  shift 2
  "$exe" "$@" --k 1000 | sed "s/^{/{\"build\":\"$label\",/" >>"$raw"
}
n=${KMS_N:-1000000}
specs="blobs:n=$n,k=100,d=2 uniform:n=$n,d=2"
# 1. Timings (seeding only).
for spec in $specs; do
  for t in $threads_list; do
    over && break 2
    bench new "$new" --generate "$spec" --threads "$t" --lloyd off --seeds 3 --methods plain
    for rep in 1 2; do
      bench new "$new" --generate "$spec" --threads "$t" --lloyd off --seeds 5 --methods bounded,parallel
      bench main "$old" --generate "$spec" --threads "$t" --lloyd off --seeds 5 --methods bounded,parallel
    done
  done
done
# 2. Final inertia after Lloyd, seeds 0-9, plain k-means++ against k-means‖ (all cores).
for spec in $specs; do
  over && break
  bench quality "$new" --generate "$spec" --threads "$cores" --lloyd on --seeds "${KMS_SEEDS:-10}" --methods plain,parallel
done
echo "elapsed: $SECONDS s"
# 3. The summary.
python3 - "$raw" <<'EOF'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
timing = [r for r in rows if r["build"] != "quality"]
by = collections.defaultdict(list)
for r in timing:
    by[(r["data"].split(":")[0], r["threads"], r["method"], r["build"])].append(r)
med = lambda rs, f: statistics.median(r[f] for r in rs)
print("\n| data | threads | seeding | build | CPU ms (median) | wall ms (median) | runs | x plain (1 thread, CPU) | x plain (1 thread, wall) | x plain (same threads, wall) |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
for data in ("blobs", "uniform"):
    base = by.get((data, 1, "plain", "new"))
    for (d, t, m, b), rs in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1], ["plain", "bounded", "parallel"].index(kv[0][2]), kv[0][3])):
        if d != data:
            continue
        same = by.get((data, t, "plain", "new"))
        cpu, wall = med(rs, "init_cpu_ms"), med(rs, "init_ms")
        r1 = f"{med(base, 'init_cpu_ms') / cpu:.2f}" if base else "-"
        r2 = f"{med(base, 'init_ms') / wall:.2f}" if base else "-"
        r3 = f"{med(same, 'init_ms') / wall:.2f}" if same else "-"
        print(f"| {d} | {t} | {m} | {b} | {cpu:.1f} | {wall:.1f} | {len(rs)} | {r1} | {r2} | {r3} |")
# Same centres: k-means‖ new at every thread count and main's, per data and seed; bounded = plain.
hashes = collections.defaultdict(set)
for r in timing:
    if r["method"] == "parallel":
        hashes[(r["data"].split(":")[0], r["seed"])].add(r["centres_hash"])
agree = sum(len(h) == 1 for h in hashes.values())
print(f"\nk-means‖ centres (new at{sorted({r['threads'] for r in timing})} threads, and main): one hash for {agree} of {len(hashes)} (data, seed)")
for k, h in sorted(hashes.items()):
    if len(h) != 1:
        print("  DIFFER:", k, sorted(h))
plain_hash = {(r["data"], r["threads"], r["seed"]): r["centres_hash"] for r in timing if r["method"] == "plain"}
pairs = [(r, plain_hash.get((r["data"], r["threads"], r["seed"]))) for r in timing if r["method"] == "bounded"]
pairs = [(r, h) for r, h in pairs if h]
print(f"bounded k-means++ = plain k-means++ (hash, both builds): {sum(r['centres_hash'] == h for r, h in pairs)} of {len(pairs)}")
quality = [r for r in rows if r["build"] == "quality"]
for data in ("blobs", "uniform"):
    q = [r for r in quality if r["data"].startswith(data)]
    pp = [r["inertia"] for r in q if r["method"] == "plain"]
    par = [r["inertia"] for r in q if r["method"] == "parallel"]
    if pp and par:
        a, b = statistics.mean(pp), statistics.mean(par)
        print(f"{data}: final inertia after Lloyd, mean of {len(pp)} / {len(par)} seeds: k-means++ {a:.6g}, k-means‖ {b:.6g}: {100 * (b - a) / a:+.3f} % (target: within 1 %)")
EOF
