#!/usr/bin/env bash
# Issue 42, session 11: one GPU in the CPU's order by default past d = 4 with k <= 32 (the direct
# and rows paths; weighted runs through the rows path and a warp per package's weight chains).
# The pack in $KMS_DEVICE_CARRY (.devcarry-c: device_pack.sh of this build, main's kmeans-cli
# beside it as bin/kmeans-cli-old). Steps:
#   check  correctness (small cases; may share the GPU and cores): test_cuda_devices' splits (the
#          default one-device run bitwise --devices 0 and the CPU), the every-shape sweep (the
#          default run bitwise --devices 0 where it takes the package update) and streamed
#          chunks; test_cuda_weights (unit weights give the unweighted bits, weighted repeatable);
#          the default GPU run's centroid files cmp'd with the CPU's (plain and weighted);
#          compute-sanitizer memcheck of the rows path (weighted and not) and the direct path.
#   map    (the GPU alone) main's default (bin/kmeans-cli-old, --device 0) against this build's
#          default over KMS_MAP_SHAPES ("d k precision[ w]", w: weighted), 10^6 blobs (100
#          centres), Lloyd, random init, tol 0, 8 steps: medians of steps 3.. (total, assign,
#          update; ms); weighted shapes also main's --devices 0 (the sorted walk then). Every
#          "after" centroid file cmp'd with main's --devices 0 run's (the CPU's order) where run.
#   task2  (the GPU alone; an experiment build) k >= 33: main's own update against the package update as
#          the default (KMS_PACKAGE_DEFAULT=2), the walk as on main and variants (KMS_WALK_G, _BATCH).
#   profile (the GPU alone) nsys's kernel table of main's own update (--device 0) and package
#          update (--devices 0) at k >= 33 (KMS_PROFILE_SHAPES "d:k:precision ...").
# Stops starting map runs after KMS_MAP_BUDGET seconds (90) from the step's start, task2's after KMS_T2_BUDGET (70). Summary table last.
# Usage: OUT=DIR KMS_DEVICE_CARRY=.devcarry-c docs/lab/device-scripts/device_cpu_order.sh check map
set -uo pipefail
export KMS_DEVICE_CARRY=${KMS_DEVICE_CARRY:-.devcarry-c}
source "$(dirname "$0")/device_common.sh"
record_device
old="$work/bin/kmeans-cli-old"
t0=$(date +%s)
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(check map)
weights_file() {  # weights_file N FILE: 0.5 + ((i·13) mod 7)/2, one a line
  python3 -c "import sys
n = int(sys.argv[1])
sys.stdout.write(''.join(f'{0.5 + ((i * 13) % 7) / 2}\n' for i in range(n)))" "$1" > "$2"
}

for step in "${steps[@]}"; do
  ts=$(date +%s)  # the step's start: map's and task2's budgets count from it
  case "$step" in
    check)
      KMS_GPU_TEST_SMALL=1 timeout 120 "$work/bin/test_cuda_devices" splitsGiveOneDevicesBits \
        packageUpdateGivesTheCpusBitsAtEveryShape streamedChunksGiveOneDevicesBits > "$out/tests-devices.log" 2>&1
      echo "test_cuda_devices (small: splits, every shape, streamed): exit $? ($(( $(date +%s) - t0 )) s)"
      grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-devices.log" | cut -c1-300
      KMS_GPU_TEST_SMALL=1 timeout 60 "$work/bin/test_cuda_weights" > "$out/tests-weights.log" 2>&1
      echo "test_cuda_weights (small): exit $? ($(( $(date +%s) - t0 )) s)"
      grep -E "FAIL|Totals|Loc" "$out/tests-weights.log" | cut -c1-300
      # The default GPU run's centroid files against the CPU's (OpenMP): 2*10^5 blobs.
      weights_file 200000 "$work/w.txt"
      for shape in "16 10 f64" "16 10 f32" "64 32 f64" "8 8 f64" "6 20 f64"; do
        set -- $shape
        for wtd in "" w; do
          extra=(); [ -n "$wtd" ] && extra=(--weights "$work/w.txt")
          for where in cuda omp; do
            OMP_NUM_THREADS=4 timeout 30 "$cli" run --generate "blobs:n=200000,k=50,d=$1" --seed 5 --k "$2" --precision "$3" \
              --backend $where --solver lloyd --init random --max-iter 12 --tol 0 "${extra[@]}" \
              --centroids-out "$work/c-cmp-$where.csv" > "$out/cmp-$1-$2-$3$wtd-$where.log" 2>&1 || echo "d=$1 k=$2 $3 $wtd on $where: exit $?"
          done
          cmp -s "$work/c-cmp-cuda.csv" "$work/c-cmp-omp.csv" && r="= the CPU's" || r="DIFFERS from the CPU's"
          echo "default GPU run d=$1 k=$2 $3 ${wtd:+weighted }(2*10^5, 12 steps): centroid file $r"
        done
      done
      # memcheck: the rows path (plain, weighted: its weight chains), the direct path past d = 4.
      weights_file 20001 "$work/w-small.txt"
      for shape in "20 6 f64 w" "9 31 f32 w" "40 32 f64 -" "8 8 f32 -"; do
        set -- $shape
        extra=(); [ "$4" = w ] && extra=(--weights "$work/w-small.txt")
        timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 "$cli" run --generate "blobs:n=20001,k=20,d=$1" \
          --seed 2 --k "$2" --precision "$3" --backend cuda --solver lloyd --init random --max-iter 3 --tol 0 "${extra[@]}" \
          > "$out/memcheck-d$1-k$2-$4.log" 2>&1
        echo "compute-sanitizer memcheck kmeans-cli d=$1 k=$2 $3 ${4/-/plain} (default run): exit $? ($(grep -c "Invalid\|ERROR SUMMARY: [1-9]" "$out/memcheck-d$1-k$2-$4.log") error lines)"
      done
      echo "check done at $(( $(date +%s) - t0 )) s" ;;
    map)
      mrun() {  # mrun TAG EXE ARGS...: one timed run, its medians as "TAG {json}", centroids in $work/c-TAG.csv
        local tag=$1 exe=$2; shift 2
        echo "$tag $(step_medians "$exe" run --input "$x" --init random --seed 3 --backend cuda --solver lloyd \
          --max-iter "${KMS_MAP_STEPS:-8}" --tol 0 --centroids-out "$work/c-$tag.csv" "$@")"
      }
      weights_file 1000000 "$work/w-map.txt"
      # The new default's shapes: the direct path past d = 4, the rows path at k = 5..32 (f64 also
      # where float takes the rounds path), weighted runs; d = 16 k = 5 and 10 repeat session 10's map.
      shapes=${KMS_MAP_SHAPES:-"16 5 f32,16 32 f32,128 32 f32,8 8 f32,16 32 f64,128 32 f64,6 20 f64,16 10 f32 w,\
64 32 f32 w,128 10 f64 w,6 8 f64 w,64 32 f32,12 5 f32,8 32 f64,8 8 f64,6 5 f32,16 20 f32,64 32 f64,256 32 f32,\
256 32 f64,256 20 f32 w,32 20 f32,16 20 f64,64 10 f32,256 10 f32,32 32 f64,16 10 f64"}
      IFS=, read -ra list <<< "$shapes"
      for shape in "${list[@]}"; do
        read -r d k p wtd <<< "$shape"
        [ $(( $(date +%s) - ts )) -lt "${KMS_MAP_BUDGET:-90}" ] || { echo "budget spent: stopped before d=$d k=$k $p $wtd"; break; }
        x=/dev/shm/kms-cpuorder-$d.npy
        [ -f "$x" ] || generate_points blobs 1000000 "$d" "$x" || continue  # (kept till the end: 2.1 GB)
        s="d$d-k$k-$p${wtd:+-w}"
        a=(--k "$k" --precision "$p"); [ -n "$wtd" ] && a+=(--weights "$work/w-map.txt")
        mrun "$s-before" "$old" "${a[@]}" --device 0
        mrun "$s-after" "$cli" "${a[@]}" --device 0
        if [ "$k" -le 8 ] && [ $((k * d)) -le 64 ] && [ -z "$wtd" ]; then  # the direct path's shape: without it (an experiment knob; the rows path, or the rounds path in float)
          echo "$s-nodirect $(KMS_PACKAGE_NO_DIRECT=1 step_medians "$cli" run --input "$x" --init random --seed 3 --backend cuda \
            --solver lloyd --max-iter "${KMS_MAP_STEPS:-8}" --tol 0 --centroids-out "$work/c-$s-nodirect.csv" "${a[@]}" --device 0)"
          cmp -s "$work/c-$s-after.csv" "$work/c-$s-nodirect.csv" || echo "  $s: the rows path's centroid file DIFFERS from the direct path's"
        fi
        if [ -n "$wtd" ]; then
          mrun "$s-pkgold" "$old" "${a[@]}" --devices 0
          cmp -s "$work/c-$s-after.csv" "$work/c-$s-pkgold.csv" && echo "  $s: after = main's --devices 0 (centroid file)" ||
            echo "  $s: after DIFFERS from main's --devices 0"
        fi
      done 2>&1 | tee "$out/map.txt"
      python3 - "$out/map.txt" <<'PY'
import json, re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(d\d+-k\d+-f\d+(?:-w)?)-(\w+) (\{.*\})$", line.strip())
    if m: rows.setdefault(m[1], {})[m[2]] = json.loads(m[3])
print("shape              step before  after  ratio | update before  after | others: step/update (pkgold: main's --devices 0)")
for s, v in rows.items():
    b, a = v.get("before", {}), v.get("after", {})
    if "total" not in b or "total" not in a: print(s, "incomplete", v); continue
    extra = "  ".join(f"{t} {r['total']:.3f}/{r['update']:.3f}" for t, r in v.items()
                      if t not in ("before", "after") and "total" in r)
    print(f"{s:18} {b['total']:8.3f} {a['total']:6.3f} {a['total'] / b['total']:6.3f} | {b['update']:8.3f} {a['update']:6.3f} | {extra}")
PY
      echo "map done at $(( $(date +%s) - t0 )) s" ;;
    task2)
      # (the GPU alone; an experiment build with the knobs) k >= 33: main's default (its own update)
      # against this build's package update as the default (KMS_PACKAGE_DEFAULT=2) with the walk as
      # on main (g1b8) and its variants: g1b16 (16 rows a batch), g2 / g4 (2 / 4 coordinates a
      # thread); every variant's centroid file cmp'd with g1b8's (all the CPU's order).
      t2run() {  # t2run TAG VARS EXE ARGS...
        local tag=$1 vars=$2 exe=$3; shift 3
        echo "$tag $(step_medians env $vars "$exe" run --input "$x" --init random --seed 3 --backend cuda --solver lloyd \
          --max-iter 8 --tol 0 --centroids-out "$work/c-$tag.csv" "$@")"
      }
      shapes=${KMS_T2_SHAPES:-"128 100 f32,64 1000 f32,16 100 f32,256 100 f32,64 100 f32,128 1000 f32,16 1000 f32,\
64 100 f64,128 1000 f64,256 1000 f32"}
      IFS=, read -ra list <<< "$shapes"
      for shape in "${list[@]}"; do
        read -r d k p <<< "$shape"
        [ $(( $(date +%s) - ts )) -lt "${KMS_T2_BUDGET:-70}" ] || { echo "budget spent: stopped before d=$d k=$k $p"; break; }
        x=/dev/shm/kms-cpuorder-$d.npy
        [ -f "$x" ] || generate_points blobs 1000000 "$d" "$x" || continue
        s="d$d-k$k-$p"
        a=(--k "$k" --precision "$p" --device 0)
        t2run "$s-before" "" "$old" "${a[@]}"
        t2run "$s-g1b8" "KMS_PACKAGE_DEFAULT=2" "$cli" "${a[@]}"
        for v in g1b16:KMS_WALK_BATCH=16 g2:KMS_WALK_G=2 g4:KMS_WALK_G=4; do
          t2run "$s-${v%%:*}" "KMS_PACKAGE_DEFAULT=2 ${v#*:}" "$cli" "${a[@]}"
          cmp -s "$work/c-$s-g1b8.csv" "$work/c-$s-${v%%:*}.csv" || echo "  $s-${v%%:*}: centroid file DIFFERS from g1b8"
        done
      done 2>&1 | tee "$out/task2.txt"
      python3 - "$out/task2.txt" <<'PY'
import json, re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(d\d+-k\d+-f\d+)-(\w+) (\{.*\})$", line.strip())
    if m: rows.setdefault(m[1], {})[m[2]] = json.loads(m[3])
print("shape           own step/update | package update as default: step/update (step ratio to own)")
for s, v in rows.items():
    b = v.get("before", {})
    if "total" not in b: print(s, "incomplete", v); continue
    extra = "  ".join(f"{t} {r['total']:.3f}/{r['update']:.3f} ({r['total'] / b['total']:.3f})" for t, r in v.items()
                      if t != "before" and "total" in r)
    print(f"{s:15} {b['total']:.3f}/{b['update']:.3f} | {extra}")
PY
      echo "task2 done at $(( $(date +%s) - t0 )) s" ;;
    profile)
      # (the GPU alone) nsys's kernel table at k >= 33 (task 2: where the CPU order's update loses):
      # main's own update (--device 0) against its package update (--devices 0), 6 steps each.
      if ! command -v nsys >/dev/null; then echo "profile: no nsys on this machine"; continue; fi
      for shape in ${KMS_PROFILE_SHAPES:-"128:100:f32" "64:1000:f32" "16:100:f64"}; do
        IFS=: read -r d k p <<< "$shape"
        x=/dev/shm/kms-prof-$d.npy
        [ -f "$x" ] || { rm -f /dev/shm/kms-prof-*.npy; generate_points blobs 1000000 "$d" "$x"; } || continue
        for how in device devices; do
          timeout 60 nsys profile -o "$work/prof-$d-$k-$how" --force-overwrite true -t cuda "$old" run --input "$x" \
            --init random --seed 3 --backend cuda --solver lloyd --max-iter 6 --tol 0 --k "$k" --precision "$p" --$how 0 \
            > /dev/null 2>&1
          echo "== nsys d=$d k=$k $p main --$how 0 (6 steps): kernels by total time"
          nsys stats --report cuda_gpu_kern_sum --format csv "$work/prof-$d-$k-$how.nsys-rep" 2>/dev/null |
            python3 -c '
import csv, sys
rows = list(csv.reader(l for l in sys.stdin if l.count(",") > 5))
head, body = rows[0], rows[1:]
t, n, name = head.index("Total Time (ns)"), head.index("Instances"), head.index("Name")
for r in body[:10]: print(f"  {int(r[t]) / 1e3:9.1f} us {int(r[n]):4d}x  {r[name][:100]}")'
        done
      done 2>&1 | tee "$out/profile.txt"
      rm -f /dev/shm/kms-prof-*.npy
      echo "profile done at $(( $(date +%s) - t0 )) s" ;;
  esac
done
rm -f /dev/shm/kms-cpuorder-*.npy
echo "elapsed $(( $(date +%s) - t0 )) s"
