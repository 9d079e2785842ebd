#!/usr/bin/env bash
# On the CUDA machine (issue 42: one GPU gives the CPU's bits by default at d > 4): the pack in
# .devcarry-pkg (docs/lab/device-scripts/device_pack.sh with KMS_DEVICE_CARRY=.devcarry-pkg; the
# build before the change beside it as bin/kmeans-cli-old), then the steps asked for:
#   check  correctness (small cases; may share the GPU): test_cuda_devices (splits, the default
#          one-device run against --devices 0 and the CPU, the walk making tree levels, streamed
#          chunks, Lloyd's and the bounded solvers'), the issue's example (10^6 x 16 blobs, k = 100, Hamerly f64: the default GPU run's
#          centroid file against the CPU's), compute-sanitizer memcheck of small CLI runs of each way
#          to the package sums;
#   paths  (device call 1, an experiment build with KMS_PACKAGE_PATH=walk|walk1|sub) the ways to the
#          package sums at 10^6 points under --devices 0 against the old build's own update
#          (--device 0) and its package update (--devices 0); centroid files cmp'd;
#   table  (alone on the GPU) the old build's default (--device 0) against this build's default,
#          f32 over every shape first, then f64.
#   sweep  (issue 42, 2026-12-07) test_cuda_devices' defaultGivesTheCpusBitsAtEveryShape (one device's
#          default run bitwise the CPU's over d 1..300, k 1..1100, f32/f64, weighted, empty clusters,
#          Hamerly, streamed chunks; KMS_PACKAGE_DEFAULT=2 there in an experiment build: every shape),
#          the small cases of the split/streamed tests, memcheck of the rows path;
#   map    (alone on the GPU) the old build's default (--device 0) against this build's default over
#          the shapes of KMS_MAP_SHAPES (below), and (an experiment build) its knobs where they matter:
#          rows128 (KMS_PACKAGE_ROWS_MAX_K=128: the rows path at k = 100), noprefetch
#          (KMS_WALK_PREFETCH=0: the walk's index loads not a batch ahead), t21 (KMS_WALK_THREADS_LOG=21),
#          small (KMS_PACKAGE_DEFAULT=2: k <= 8, d <= 4 unfused); every variant's centroid file cmp'd with
#          the default's (all are the CPU's order). Summary table last.
#   rest   the small cases of test_cuda_devices' streamed tests and the sweep (all shapes, the rows
#          path to k = 128), for a lane beside the map.
# Data: blobs (100 centres) of 10^6 points, d in KMS_PKG_D ("8 16 32 64 128"), k in KMS_PKG_K
# ("10 100 1000"), Lloyd, random init, tol 0, KMS_PKG_STEPS (10) steps: medians of steps 3.. (total,
# assignment, update; ms). Stops starting runs after KMS_PKG_BUDGET seconds (200).
set -uo pipefail
export KMS_DEVICE_CARRY=${KMS_DEVICE_CARRY:-.devcarry-pkg}
source "$(dirname "$0")/device_common.sh"
record_device
old="$work/bin/kmeans-cli-old"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(sweep map)
t0=$(date +%s)
left() { [ $(( $(date +%s) - t0 )) -lt "${KMS_PKG_BUDGET:-215}" ]; }

# run TAG PATH EXE ARGS...: one timed run (KMS_PACKAGE_PATH=PATH; "" for none), its medians printed as
# "TAG {json}", its centroids in $work/c-TAG.csv.
run() {
  local tag=$1 path=$2 exe=$3; shift 3
  echo "$tag $(step_medians env KMS_PACKAGE_PATH="$path" "$exe" run --input "$x" --init random --seed 3 --backend cuda --solver lloyd \
    --max-iter "${KMS_PKG_STEPS:-10}" --tol 0 --centroids-out "$work/c-$tag.csv" "$@")"
}
same() { cmp -s "$work/c-$1.csv" "$work/c-$2.csv" && echo "  $1 = $2 (centroid files)" || echo "  $1 != $2 (centroid files DIFFER)"; }

for step in "${steps[@]}"; do
  case "$step" in
    check)
      KMS_GPU_TEST_SMALL=1 timeout 90 "$work/bin/test_cuda_devices" splitsGiveOneDevicesBits packageWalkMakesTreeLevels \
        streamedChunksGiveOneDevicesBits streamedBoundedSolversGiveTheResidentBits > "$out/tests-devices.log" 2>&1
      echo "test_cuda_devices (small): exit $?"; grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-devices.log" | cut -c1-300
      x=/dev/shm/kms-pkg-example.npy
      generate_points blobs 1000000 16 "$x"
      for where in cuda omp; do
        OMP_NUM_THREADS=4 timeout 30 "$cli" run --input "$x" --k 100 --solver hamerly --precision f64 --backend $where --init random --seed 4 \
          --centroids-out "$work/c-example-$where.csv" --labels-out "$work/l-example-$where.txt" --report json \
          > "$work/example-$where.json" 2>&1 || echo "example on $where: exit $?"
      done
      cmp "$work/c-example-cuda.csv" "$work/c-example-omp.csv" && cmp "$work/l-example-cuda.txt" "$work/l-example-omp.txt" &&
        echo "issue 42's example (10^6 x 16 blobs, k = 100, Hamerly f64): the default GPU run's centroid and label files = the CPU's"
      rm -f "$x"
      # memcheck: the package walk one package a thread (k = 100, d = 16), several (k = 256, d = 256:
      # 20 packages, 2 a thread), the sub-package walks (k = 4, d = 24), the rounds path (d = 6, f32).
      for shape in "16 100 f64" "256 256 f32" "24 4 f64" "6 20 f32"; do
        set -- $shape
        timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 "$cli" run --generate "blobs:n=20000,k=20,d=$1" \
          --seed 2 --k "$2" --precision "$3" --backend cuda --solver lloyd --init random --max-iter 3 --tol 0 > "$out/memcheck-d$1-k$2.log" 2>&1
        echo "compute-sanitizer memcheck kmeans-cli d=$1 k=$2 $3: exit $? ($(grep -c "Invalid\|ERROR SUMMARY: [1-9]" "$out/memcheck-d$1-k$2.log") error lines)"
      done ;;
    sweep)
      KMS_PACKAGE_DEFAULT=2 timeout 150 "$work/bin/test_cuda_devices" defaultGivesTheCpusBitsAtEveryShape \
        > "$out/tests-sweep.log" 2>&1
      echo "test_cuda_devices defaultGivesTheCpusBitsAtEveryShape: exit $? ($(( $(date +%s) - t0 )) s)"
      grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-sweep.log" | cut -c1-400
      KMS_GPU_TEST_SMALL=1 timeout 60 "$work/bin/test_cuda_devices" splitsGiveOneDevicesBits packageWalkMakesTreeLevels \
        streamedChunksGiveOneDevicesBits > "$out/tests-devices.log" 2>&1
      echo "test_cuda_devices (small): exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-devices.log" | cut -c1-300
      for shape in "16 10 f32" "64 5 f64" "300 3 f32" "9 31 f64"; do
        set -- $shape
        timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 "$cli" run --generate "blobs:n=20001,k=20,d=$1" \
          --seed 2 --k "$2" --precision "$3" --backend cuda --solver lloyd --init random --max-iter 3 --tol 0 > "$out/memcheck-d$1-k$2.log" 2>&1
        echo "compute-sanitizer memcheck kmeans-cli d=$1 k=$2 $3 (rows path): exit $? ($(grep -c "Invalid\|ERROR SUMMARY: [1-9]" "$out/memcheck-d$1-k$2.log") error lines)"
      done
      # Issue 42's example, one GPU by default (no --devices) against the CPU.
      x=/dev/shm/kms-pkg-example.npy
      generate_points blobs 1000000 16 "$x"
      for where in cuda omp; do
        timeout 40 "$cli" run --input "$x" --k 100 --solver hamerly --precision f64 --backend $where --init random --seed 4 \
          --centroids-out "$work/c-example-$where.csv" --labels-out "$work/l-example-$where.txt" --report json \
          > "$work/example-$where.json" 2>&1 || echo "example on $where: exit $?"
      done
      cmp "$work/c-example-cuda.csv" "$work/c-example-omp.csv" && cmp "$work/l-example-cuda.txt" "$work/l-example-omp.txt" &&
        echo "issue 42's example (10^6 x 16 blobs, k = 100, Hamerly f64): the default GPU run's centroid and label files = the CPU's"
      rm -f "$x"
      echo "sweep done at $(( $(date +%s) - t0 )) s" ;;
    rest)
      KMS_GPU_TEST_SMALL=1 KMS_PACKAGE_DEFAULT=2 KMS_PACKAGE_ROWS_MAX_K=128 timeout 40 "$work/bin/test_cuda_devices" \
        defaultGivesTheCpusBitsAtEveryShape > "$out/tests-sweep-small.log" 2>&1
      echo "test_cuda_devices defaultGivesTheCpusBitsAtEveryShape (small, every shape, rows path to k = 128): exit $? ($(( $(date +%s) - t0 )) s)"
      grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-sweep-small.log" | cut -c1-400
      KMS_GPU_TEST_SMALL=1 timeout 45 "$work/bin/test_cuda_devices" streamedChunksGiveOneDevicesBits \
        streamedBoundedSolversGiveTheResidentBits > "$out/tests-streamed.log" 2>&1
      echo "test_cuda_devices streamed (small): exit $? ($(( $(date +%s) - t0 )) s)"
      grep -E "FAIL|QINFO|Totals|Loc" "$out/tests-streamed.log" | cut -c1-300 ;;
    profile)
      # nsys's kernel table for a few shapes (old build's default, this build's): where the update's time goes.
      if ! command -v nsys >/dev/null; then echo "profile: no nsys on this machine"; continue; fi
      for shape in "64 1000 f32" "16 100 f32" "128 10 f32"; do
        set -- $shape
        x=/dev/shm/kms-prof-$1.npy
        [ -f "$x" ] || generate_points blobs 1000000 "$1" "$x" || continue
        for build in old new; do
          exe=$cli; [ $build = old ] && exe=$old
          timeout 60 nsys profile -o "$work/prof-$1-$2-$build" --force-overwrite true -t cuda "$exe" run --input "$x" \
            --init random --seed 3 --backend cuda --solver lloyd --max-iter 6 --tol 0 --k "$2" --precision "$3" --device 0 \
            > /dev/null 2>&1
          echo "== nsys d=$1 k=$2 $3 $build build (6 steps): kernels by total time"
          nsys stats --report cuda_gpu_kern_sum --format csv "$work/prof-$1-$2-$build.nsys-rep" 2>/dev/null |
            python3 -c '
import csv, sys
rows = list(csv.reader(l for l in sys.stdin if l.count(",") > 5))
head, body = rows[0], rows[1:]
t, n, name = head.index("Total Time (ns)"), head.index("Instances"), head.index("Name")
for r in body[:9]: print(f"  {int(r[t]) / 1e3:9.1f} us {int(r[n]):4d}x  {r[name][:110]}")'
        done
        rm -f "$x"
      done
      echo "profile done at $(( $(date +%s) - t0 )) s" ;;
    map)
      # mrun TAG ENV EXE ARGS...: one timed run under `env ENV` (KMS_X=1 ...), its medians as "TAG {json}".
      mrun() {
        local tag=$1 vars=$2 exe=$3; shift 3
        echo "$tag $(step_medians env $vars "$exe" run --input "$x" --init random --seed 3 --backend cuda --solver lloyd \
          --max-iter "${KMS_PKG_STEPS:-8}" --tol 0 --centroids-out "$work/c-$tag.csv" "$@")"
      }
      # The shapes, the most telling first ("d k precision"; KMS_MAP_SHAPES overrides): past the
      # rounds path at k = 5, 10, 100; then k = 1000; then the fused small path (k <= 8, d <= 4) and d = 8.
      shapes=${KMS_MAP_SHAPES:-"16 5 f32,16 10 f32,16 100 f32,64 5 f32,64 10 f32,64 100 f32,128 5 f32,128 10 f32,128 100 f32,\
32 5 f32,32 10 f32,32 100 f32,16 5 f64,16 10 f64,16 100 f64,64 5 f64,64 10 f64,64 100 f64,128 5 f64,128 10 f64,\
128 100 f64,32 5 f64,32 10 f64,32 100 f64,16 1000 f32,64 1000 f32,128 1000 f32,16 1000 f64,64 1000 f64,\
2 5 f32,4 5 f32,2 5 f64,4 5 f64,8 5 f32,8 10 f64,8 100 f32,32 1000 f32,128 1000 f64"}
      IFS=, read -ra list <<< "$shapes"
      for shape in "${list[@]}"; do
        read -r d k p <<< "$shape"
        left || { echo "budget spent: stopped before d=$d k=$k $p"; break; }
        x=/dev/shm/kms-pkg-$d.npy
        [ -f "$x" ] || generate_points blobs 1000000 "$d" "$x" || continue
        s="d$d-k$k-$p"
        a=(--k "$k" --precision $p --device 0)
        mrun "$s-before" "" "$old" "${a[@]}"
        mrun "$s-after" "" "$cli" "${a[@]}"
        variants=()
        [ "$k" -le 8 ] && [ "$d" -le 4 ] && variants+=("small:KMS_PACKAGE_DEFAULT=2")
        [ "$k" = 100 ] && [ "$d" -ge 16 ] && [ "$p" = f32 ] && variants+=("rows128:KMS_PACKAGE_ROWS_MAX_K=128")
        [ "$k" -ge 100 ] && [ "$d" -ge 16 ] && variants+=("noprefetch:KMS_WALK_PREFETCH=0")
        [ "$k" = 1000 ] && [ "$p" = f32 ] && variants+=("t21:KMS_WALK_THREADS_LOG=21")
        for v in "${variants[@]}"; do
          mrun "$s-${v%%:*}" "${v#*:}" "$cli" "${a[@]}"
          # (small: the default there is the fused update's own order, so no cmp)
          [ "${v%%:*}" = small ] || cmp -s "$work/c-$s-after.csv" "$work/c-$s-${v%%:*}.csv" ||
            echo "  $s-${v%%:*}: centroid file DIFFERS from $s-after"
        done
      done 2>&1 | tee "$out/map.txt"
      rm -f /dev/shm/kms-pkg-*.npy
      python3 - "$out/map.txt" <<'PY'
import json, re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(d\d+-k\d+-f\d+)-(\w+) (\{.*\})$", line.strip())
    if m: rows.setdefault(m[1], {})[m[2]] = json.loads(m[3])
print("shape            step before  after  ratio | update before  after | variants (step, update)")
for s, v in rows.items():
    b, a = v.get("before", {}), v.get("after", {})
    if "total" not in b or "total" not in a: print(s, "incomplete", v); continue
    extra = "  ".join(f"{t} {r['total']:.3f}/{r['update']:.3f}" for t, r in v.items()
                      if t not in ("before", "after") and "total" in r)
    print(f"{s:16} {b['total']:8.3f} {a['total']:6.3f} {a['total'] / b['total']:6.3f} | {b['update']:8.3f} {a['update']:6.3f} | {extra}")
PY
      ;;
    paths|table)
      for p in f32 f64; do
        for d in ${KMS_PKG_D:-8 16 32 64 128}; do
          left || { echo "budget spent: stopped before $p d=$d"; break 2; }
          x=/dev/shm/kms-pkg-$d.npy
          [ -f "$x" ] || generate_points blobs 1000000 "$d" "$x" || continue
          for k in ${KMS_PKG_K:-10 100 1000}; do
            left || break
            s="d$d-k$k-$p"
            if [ "$step" = paths ]; then
              run "$s-own" "" "$old" --k "$k" --precision $p --device 0
              run "$s-pkg-old" "" "$old" --k "$k" --precision $p --devices 0
              run "$s-walk" walk "$cli" --k "$k" --precision $p --devices 0
              [ "$k" -le 100 ] && run "$s-sub" sub "$cli" --k "$k" --precision $p --devices 0
              # Where the walk makes the tree's first levels (2^21 or more package sums): also without.
              [ $((245 * k * d)) -ge 2097152 ] && run "$s-walk1" walk1 "$cli" --k "$k" --precision $p --devices 0
              same "$s-walk" "$s-pkg-old"; [ "$k" -le 100 ] && same "$s-sub" "$s-pkg-old"
              [ $((245 * k * d)) -ge 2097152 ] && same "$s-walk1" "$s-pkg-old"
            else
              run "$s-before" "" "$old" --k "$k" --precision $p --device 0
              run "$s-after" "" "$cli" --k "$k" --precision $p --device 0
            fi
          done
        done
      done 2>&1 | tee "$out/$step.txt"
      rm -f /dev/shm/kms-pkg-*.npy ;;
  esac
done
echo "elapsed $(( $(date +%s) - t0 )) s"
