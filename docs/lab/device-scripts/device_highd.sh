#!/usr/bin/env bash
# On the CUDA machine: issue 37's high-d map. Our Lloyd step (f32) with the GEMM filter in
# its two formats (tf32, the default; int8 by KMS_GEMM_FORMAT), the exact kernel alone
# (--gemm-filter off) and --solver auto, against PyTorch (exact FP32; compiled TF32, inexact)
# and flash-kmeans (its public source carried in .devcarry-flash, never committed) on the
# same points and initial centroids (the highd suite of scripts/bench.sh). Unpacks
# .devcarry-gpu/pack.tar.xz (docs/lab/device-scripts/device_pack.sh).
# Usage: OUT=DIR docs/lab/device-scripts/device_highd.sh [checks] [profile] [ab] [bench]
#   (default: checks profile bench)
#   checks: the filter's tests in both formats, the lockstep suites, compute-sanitizer
#     memcheck (the filter kernel's passes; the list verification) and racecheck (the
#     filter kernel's passes), small cases; each run at most KMS_CHECKS_LIMIT seconds
#     (default 170), all at once → DIR/checks.txt.
#   profile: ncu's kernel durations of steps 4-8 (per kernel: launches, median, µs a step)
#     at KMS_PROFILE_SHAPES="KIND:N:D:K ..." (default uniform and blobs 10^6 × 128, k = 1024;
#     tf32 filter); KMS_PROFILE_STALLS=1 adds the filter kernel's throughput, occupancy and
#     top stall reasons (step 4's summary pass); KMS_PROFILE_WHICH="base new" profiles
#     bin/kmeans-cli-base too (as ab's rows) → DIR/profile.txt, DIR/profile-*.
#   ab: ms per Lloyd step (f32, tf32 filter), medians of steps 3–8, of a baseline build
#     (bin/kmeans-cli-base in the pack: device_pack.sh BUILD BASELINE) and this one, on the
#     suite's points (in /dev/shm where there is one) and initial centroids, the most telling
#     rows first: blobs 10^6 × 128 and × 256, k = 1000 (both builds), uniform at the same
#     shapes (this one), blobs × 64 (both), blobs 4·10^6 × 128, k = 1024 (this one, then the
#     baseline); with the points certified, settled by candidate lists and searched over all
#     k (this build's records), and the approximate and exact distances a point beyond the
#     filter's k (about k: the list pass ran for it); no row starts KMS_AB_BUDGET seconds
#     (default 60) after the first; KMS_AB_ROWS="kind:n:d:k:which[,which] ..." replaces the
#     rows (which: new, this
#     build; NAME, bin/kmeans-cli-NAME in the pack: base, or another build packed beside) → DIR/ab.txt.
#   bench: `scripts/bench.sh highd --device-only` (its GPU rows; KMS_HIGHD_D="16 32 64 128 256",
#     KMS_HIGHD_K="100 1000", KMS_HIGHD_DATA="blobs uniform", KMS_HIGHD_N=1000000,
#     KMS_HIGHD_EXTRA="uniform:1000000:128:1024 blobs:4000000:128:1024" narrow or widen it)
#     → DIR/highd/report.md, highd.json; KMS_HIGHD_QUICK=1 adds --quick.
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(checks profile bench)
record_device > /dev/null

checks() {
  local bin=$work/bin limit=${KMS_CHECKS_LIMIT:-170}
  for f in gemmFilterPath doubleMatchesCpuLloyd floatMatchesLloydAndCpu \
           "smallKMatchesExact lloydStatisticsAndStop fitLayerMatchesCpu autoRacesOnTheData errors"; do
    (timeout "$limit" "$bin/test_cuda_solvers" $f > "$out/solvers-${f%% *}.log" 2>&1; echo "test_cuda_solvers $f: exit $?") &
  done
  for run in memcheck:filter_kernel memcheck:gemm_verify racecheck:filter_kernel; do
    (KMS_GPU_TEST_SMALL=1 timeout "$limit" compute-sanitizer --tool ${run%:*} --kernel-name kns=${run#*:} --error-exitcode 9 \
       "$bin/test_cuda_solvers" gemmFilterPath > "$out/${run/:/-}.log" 2>&1
     echo "compute-sanitizer ${run%:*} (${run#*:}, gemmFilterPath, small): exit $?" \
          "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/${run/:/-}.log")") &
  done
  wait
  grep -h -E "^Totals|FAIL|differ" "$out"/solvers-*.log | head -40
}

profile() {
  local ncu shape kind n d k x run base which exe
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  for shape in ${KMS_PROFILE_SHAPES:-uniform:1000000:128:1024 blobs:1000000:128:1024}; do
    IFS=: read -r kind n d k <<< "$shape"
    x="$work/profile-$kind-$n-$d.npy"
    [ -f "$x" ] || generate_points "$kind" "$n" "$d" "$x" || continue
    for which in ${KMS_PROFILE_WHICH:-new}; do  # new: this build; NAME: bin/kmeans-cli-NAME in the pack
      exe=$cli
      [ "$which" != new ] && exe=$work/bin/kmeans-cli-$which
      run=("$exe" run --input "$x" --k "$k" --init random --seed 3 --solver lloyd --backend cuda --variant shared
           --precision f32 --max-iter 8 --tol 0)
      base="$out/profile-$kind-$n-$d-$k-$which"
      # Every launch of steps 4-8 (a step launches ~16 kernels), timed alone with the clocks
      # and caches as a run leaves them; the per-step sum is what the kernels cost without
      # the gaps between launches.
      echo "== $which: $kind $n x $d, k = $k, f32, cuda-shared (tf32 filter): kernels of steps 4-8 (ncu), us"
      "$ncu" --csv --print-units base --clock-control none --cache-control none --metrics gpu__time_duration.sum \
        --launch-skip 48 --launch-count 80 "${run[@]}" > "$base.csv" 2> "$base.err"
      python3 - "$base.csv" <<'PY'
import collections, csv, re, statistics, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')) if len(r) > 14]
head, rows = rows[0], rows[1:]
name, grid, value = head.index("Kernel Name"), head.index("Grid Size"), head.index("Metric Value")
times = collections.OrderedDict()
for r in rows:  # the kernel's name without namespaces, template or parameters, and its grid
    short = re.split(r"[<(]", r[name].replace("(anonymous namespace)", "").replace("void ", ""))[0].split("::")[-1]
    times.setdefault("%s %s" % (short, r[grid].replace(" ", "")), []).append(float(r[value].replace(",", "")) / 1e3)
steps = max((len(v) for k, v in times.items() if k.startswith("quantise_rows_kernel")), default=1)
print("  %-56s %8s %10s %10s" % ("kernel (grid)", "launches", "median us", "us a step"))
for k, v in times.items():
    print("  %-56s %8d %10.1f %10.1f" % (k[:56], len(v), statistics.median(v), sum(v) / steps))
print("  %-56s %8s %10s %10.1f" % ("all (%d steps)" % steps, "", "", sum(map(sum, times.values())) / steps))
PY
      # The filter kernel itself (step 4's summary pass): occupancy, throughput, where its warps wait.
      [ -n "${KMS_PROFILE_STALLS:-}" ] || continue
      echo "-- filter kernel (summary pass, step 4): throughput, occupancy, stalls (cycles a warp per issued instruction)"
      "$ncu" --clock-control none --cache-control none --kernel-name regex:filter_kernel --launch-skip 6 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
        --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio "${run[@]}" > "$base-filter.txt" 2>&1
      grep -E "^    (Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit (Registers|Shared Mem)|Warp Cycles Per Issued Instruction|L2 Hit Rate|L1/TEX Hit Rate) " "$base-filter.txt" | sed 's/^ */  /'
      grep -E "smsp__average_warps_issue_stalled_.*_per_issue_active" "$base-filter.txt" |
        awk '{print $NF, $1}' | sort -rn | head -7 | awk '{printf "  stall %-50s %s\n", $2, $1}'
    done
  done
}

# One row of `ab` (n: its points): medians over steps 3.. of the assignment and the step;
# the shares of the points certified, listed and searched over all k on step 1 and
# (medians) later, where a later step may be the exact kernel's (the run's probe).
ab_row() {
  "$@" --report json 2>/dev/null | N=$n K=$k python3 -c '
import json, os, statistics, sys
n, k = int(os.environ["N"]), int(os.environ["K"])
its = [json.loads(l) for l in sys.stdin if l.startswith("{")]
its = [r for r in its if r.get("type") == "iteration"]
late = its[2:]
if not late: print("failed"); sys.exit()
med = lambda f: statistics.median(f(r) for r in late)
cert = lambda r: 100.0 * r.get("gemm_certified", 0) / n
listed = lambda r: 100.0 * r.get("gemm_listed", 0) / n
full = lambda r: 100.0 * (r.get("verified_points", 0) - r.get("gemm_listed", 0)) / n
extra = lambda r: (r["point_centroid_distances"] - n * k) / n if r.get("verified_points", 0) + r.get("gemm_certified", 0) else 0.0
print("%.2f / %.2f ms; step 1 certified %.1f %%, listed %.1f %%, all k %.1f %%; later %.1f / %.1f / %.1f %%, %.1f more distances a point" % (
    med(lambda r: r["time_assign_ms"]), med(lambda r: r["time_total_ms"]), cert(its[0]), listed(its[0]),
    full(its[0]), med(cert), med(listed), med(full), med(extra)))'
}

ab() {
  local row kind n d k which exe x dir=/dev/shm start=$SECONDS
  [ -d "$dir" ] && [ -w "$dir" ] || dir=$work
  echo "ms per step, assignment / step (medians of steps 3-8), f32, --variant shared (tf32 filter)"
  local rows="blobs:1000000:128:1000:base,new blobs:1000000:256:1000:base,new uniform:1000000:128:1000:new
             uniform:1000000:256:1000:new blobs:1000000:64:1000:base,new blobs:4000000:128:1024:new,base"
  for row in ${KMS_AB_ROWS:-$rows}; do
    [ $((SECONDS - start)) -gt "${KMS_AB_BUDGET:-60}" ] && { echo "(budget spent: $row not run)"; continue; }
    IFS=: read -r kind n d k which <<< "$row"
    x="$dir/kms-ab-$kind-$n-$d.npy"
    generate_points "$kind" "$n" "$d" "$x" || continue
    for which in ${which//,/ }; do
      exe=$cli
      [ "$which" != new ] && exe=$work/bin/kmeans-cli-$which
      echo "$kind n=$n d=$d k=$k $which: $(ab_row timeout 40 "$exe" run --input "$x" --k "$k" --init random --seed 3 \
        --solver lloyd --backend cuda --variant shared --precision f32 --max-iter 8 --tol 0)"
    done
    rm -f "$x"
  done
}

# The highd suite's GPU rows (bench/suites/suites.py: suite_highd) with the packed binaries,
# flash-kmeans from .devcarry-flash; report in DIR/highd/report.md.
bench() {
  KMS_CLI=$cli KMS_BENCH_CEILING=$work/bin/bench_ceiling KMS_BENCH_CUDA=$work/bin/bench_cuda_solvers \
    KMS_PYTHON=python3 KMS_FLASH_KMEANS="$root/.devcarry-flash" \
    "$root/scripts/bench.sh" highd --device-only --out "$out/highd" "$@"
}

for step in "${steps[@]}"; do
  case "$step" in
    checks) checks 2>&1 | tee "$out/checks.txt" ;;
    profile) profile 2>&1 | tee "$out/profile.txt" ;;
    ab) ab 2>&1 | tee "$out/ab.txt" ;;
    bench) bench ${KMS_HIGHD_QUICK:+--quick} 2>&1 | tee "$out/highd.txt" ;;
    *) echo "device_highd.sh: checks, profile, ab or bench, not '$step'" >&2; exit 2 ;;
  esac
done
