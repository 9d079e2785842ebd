#!/usr/bin/env bash
# On a CUDA machine (issue 17: several devices): unpack the carried binaries
# (docs/lab/device-scripts/device_pack.sh), run the multi-device suite (with compute-sanitizer on
# its small cases) and the regression suites, then time one device against all of
# them on a large data set and check that the centroid and label files are equal
# byte for byte. Logs go to ${OUT:-./device-out}.
# Usage: docs/lab/device-scripts/device_devices.sh [tests] [sanitize] [bench] [stream] [big]   (default: tests sanitize bench)
#   stream: streamed Lloyd (--stream-chunk) against the same run resident on the device and
#           against the host-to-device bandwidth PyTorch measures for a pinned copy, files cmp'd;
#   big:    points larger than one device's memory, streamed without being asked.
# Environment: KMS_SCALE_N (points, default 10^8), KMS_SCALE_D (4), KMS_SCALE_K ("4 100"), KMS_SCALE_ITER (20),
# KMS_SCALE_DEVICE ("1": also time the single-device default, --device 0), KMS_SCALE_RANKS (R: also R MPI
# ranks each driving its share of the GPUs, --devices all), KMS_SCALE_SPLITS (device lists
# besides 0 and all, e.g. "0,1"), KMS_STREAM_N (4*10^8), KMS_STREAM_CHUNKS ("50000000 12500000"),
# KMS_STREAM_K ("4 100"), KMS_BIG_N (7*10^8 points of KMS_BIG_D = 16 doubles: 84 GB).
set -uo pipefail
source "$(dirname "$0")/device_common.sh"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests sanitize bench)
nvidia-smi --query-gpu=index,name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$out/device.txt"
nvidia-smi topo -m 2>/dev/null | tee -a "$out/device.txt"
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      "$work/bin/test_cuda_devices" 2>&1 | tee "$out/tests-devices.log" | grep -E "PASS|FAIL|QINFO|Totals|SKIP|Loc" | cut -c1-400
      for suite in test_cuda_solvers test_cuda_weights test_cuda_init; do
        "$work/bin/$suite" > "$out/tests-$suite.log" 2>&1
        echo "$suite: exit $?"; grep -E "FAIL|Totals" "$out/tests-$suite.log" | head -8
      done ;;
    sanitize)
      KMS_GPU_TEST_SMALL=1 timeout 400 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$work/bin/test_cuda_devices" splitsGiveOneDevicesBits streamedChunksGiveOneDevicesBits streamedStepCopiesEveryPoint > "$out/sanitizer-memcheck-devices.log" 2>&1
      echo "compute-sanitizer memcheck test_cuda_devices: exit $?"; tail -2 "$out/sanitizer-memcheck-devices.log" ;;
    bench)
      n=${KMS_SCALE_N:-100000000}; d=${KMS_SCALE_D:-4}; iters=${KMS_SCALE_ITER:-20}
      count=$(nvidia-smi -L | wc -l)
      all=$(seq -s, 0 $((count - 1)))
      start=$(date +%s.%N)
      "$cli" generate --generate "uniform:n=$n,d=$d" --seed 7 --out "$work/x.npy" > /dev/null || exit 1
      echo "generated $n x $d in $(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 2))" "$(date +%s.%N)" "$start") s"
      for k in ${KMS_SCALE_K:-4 100}; do
        hows=("--devices 0")
        for split in ${KMS_SCALE_SPLITS:-}; do hows+=("--devices $split"); done
        hows+=("--devices $all")
        [ "${KMS_SCALE_DEVICE:-1}" = 1 ] && hows+=("--device 0")
        # KMS_SCALE_RANKS=R: also R MPI ranks sharing the machine's GPUs out (--devices all each).
        [ -n "${KMS_SCALE_RANKS:-}" ] && hows+=("mpirun${KMS_SCALE_RANKS} --devices all")
        for how in "${hows[@]}"; do
          tag=$(echo "$how" | tr -d ' -' | tr ',' '_')
          launch=()
          if [[ $how == mpirun* ]]; then
            source "$(dirname "$0")/device_mpi_env.sh"
            launch=(mpirun -n "${KMS_SCALE_RANKS}" --mca btl self,vader --mca pml ob1 --bind-to none)
            how=${how#mpirun* }
          fi
          start=$(date +%s.%N)
          "${launch[@]}" "$cli" run --input "$work/x.npy" --k "$k" --init random --seed 3 --backend cuda --precision f32 $how \
            --max-iter "$iters" --tol 0 --report json --centroids-out "$work/c-$k-$tag.csv" \
            --labels-out "$work/l-$k-$tag.txt" > "$work/r-$k-$tag.json" 2>&1
          rc=$?
          wall=$(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 2))" "$(date +%s.%N)" "$start")
          python3 - "$work/r-$k-$tag.json" "$k" "$how" "$wall" "$rc" <<'PY' | tee -a "$out/scale.txt"
import json, sys
path, k, how, wall, rc = sys.argv[1:]
lines = [l for l in open(path) if l.startswith('{')]
it = [json.loads(l) for l in lines if '"iteration"' in l]
s = [json.loads(l) for l in lines if '"summary"' in l]
if not s:
    print(f"k={k} {how}: exit {rc}: " + open(path).read()[-600:]); sys.exit()
s = s[-1]
steps = sorted(x.get("time_ms", x.get("time_total_ms", 0)) for x in it) if it else []
med = steps[len(steps)//2] if steps else s["total_time_ms"] / max(1, s["iterations"])
print(f"k={k} {how}: devices={s.get('devices')} iterations={s['iterations']} total {s['total_time_ms']:.1f} ms, "
      f"median step {med:.3f} ms, mean {s['total_time_ms']/max(1,s['iterations']):.3f} ms, wall {float(wall):.1f} s, inertia {s['inertia']!r}")
PY
        done
        cmp "$work/c-$k-devices0.csv" "$work/c-$k-devices$(echo $all | tr ',' '_').csv" && \
          cmp "$work/l-$k-devices0.txt" "$work/l-$k-devices$(echo $all | tr ',' '_').txt" && \
          echo "k=$k: --devices 0 and --devices $all wrote byte-identical centroids and labels" | tee -a "$out/scale.txt"
        ranked="$work/c-$k-mpirun${KMS_SCALE_RANKS:-}devicesall.csv"
        if [ -n "${KMS_SCALE_RANKS:-}" ]; then
          cmp -s "$work/c-$k-devices0.csv" "$ranked" && cmp -s "$work/l-$k-devices0.txt" "$work/l-$k-mpirun${KMS_SCALE_RANKS}devicesall.txt" &&
            echo "k=$k: $KMS_SCALE_RANKS ranks x --devices all wrote the centroids and labels of --devices 0" | tee -a "$out/scale.txt" ||
            echo "k=$k: $KMS_SCALE_RANKS ranks x --devices all: files DIFFER from --devices 0" | tee -a "$out/scale.txt"
        fi
        if [ -f "$work/c-$k-device0.csv" ]; then
          cmp -s "$work/c-$k-devices0.csv" "$work/c-$k-device0.csv" && echo "k=$k: --device 0 (default update) wrote the same centroid file" | tee -a "$out/scale.txt" \
            || echo "k=$k: --device 0 (default update) centroids differ in the last bits, as documented" | tee -a "$out/scale.txt"
        fi
      done ;;
    stream)
      n=${KMS_STREAM_N:-400000000}; d=4; iters=10
      python3 - <<'PY' | tee "$out/stream.txt"
import torch, time
# The peer: PyTorch's pinned host-to-device copy of 4 GiB, median of 7.
x = torch.empty(1 << 30, dtype=torch.float32).pin_memory()
y = torch.empty_like(x, device="cuda")
times = []
for _ in range(8):
    torch.cuda.synchronize(); t = time.perf_counter(); y.copy_(x, non_blocking=True); torch.cuda.synchronize()
    times.append(time.perf_counter() - t)
times = sorted(times[1:])
print(f"pinned H2D (torch, 4 GiB, median of 7): {x.numel() * 4 / times[3] / 1e9:.2f} GB/s")
PY
      "$cli" generate --generate "uniform:n=$n,d=$d" --seed 7 --out "$work/s.npy" > /dev/null || exit 1
      for k in ${KMS_STREAM_K:-4 100}; do
        for how in "--devices 0" ${KMS_STREAM_CHUNKS:-50000000 12500000}; do
          if [ "$how" = "--devices 0" ]; then tag=resident; args=(--devices 0); else tag=chunk$how; args=(--stream-chunk "$how"); fi
          "$cli" run --input "$work/s.npy" --k "$k" --init random --seed 3 --backend cuda --precision f32 "${args[@]}" \
            --max-iter "$iters" --tol 0 --report json --centroids-out "$work/sc-$k-$tag.csv" \
            --labels-out "$work/sl-$k-$tag.txt" > "$work/sr-$k-$tag.json" 2>&1
          python3 - "$work/sr-$k-$tag.json" "$k" "$tag" <<'PY' | tee -a "$out/stream.txt"
import json, sys
path, k, tag = sys.argv[1:]
lines = [l for l in open(path) if l.startswith('{')]
it = [json.loads(l) for l in lines if '"iteration"' in l]
if not it:
    print(f"k={k} {tag}: " + open(path).read()[-600:]); sys.exit()
later = sorted(x["time_total_ms"] for x in it[1:])
med = later[len(later) // 2]
b = it[-1].get("streamed_bytes", 0)
bw = f", {b / 1e9:.2f} GB per step = {b / med / 1e6:.2f} GB/s" if b else ""
print(f"k={k} {tag}: median step (iterations 2-{len(it)}) {med:.2f} ms{bw}, first step {it[0]['time_total_ms']:.2f} ms")
PY
          if [ "$tag" != resident ]; then
            cmp "$work/sc-$k-resident.csv" "$work/sc-$k-$tag.csv" && cmp "$work/sl-$k-resident.txt" "$work/sl-$k-$tag.txt" && \
              echo "k=$k $tag: centroid and label files byte-identical to the resident run" | tee -a "$out/stream.txt"
          fi
        done
      done
      rm -f "$work/s.npy" ;;
    big)
      n=${KMS_BIG_N:-700000000}; d=${KMS_BIG_D:-16}
      nvidia-smi --query-gpu=memory.total,memory.free --format=csv -i 0 | tee "$out/big.txt"
      start=$(date +%s.%N)
      "$cli" run --generate "uniform:n=$n,d=$d" --k 100 --init random --seed 3 --backend cuda --precision f64 \
        --max-iter 3 --tol 0 --report json > "$work/big.json" 2>&1
      echo "exit $? after $(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 1))" "$(date +%s.%N)" "$start") s (generation included)" | tee -a "$out/big.txt"
      python3 - "$work/big.json" "$n" "$d" <<'PY' | tee -a "$out/big.txt"
import json, sys
path, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = [l for l in open(path) if l.startswith('{')]
it = [json.loads(l) for l in lines if '"iteration"' in l]
print(f"{n} x {d} doubles = {n * d * 8 / 2**30:.1f} GiB")
for x in it:
    b = x.get("streamed_bytes", 0)
    print(f"iteration {x['iteration']}: {x['time_total_ms']:.1f} ms, streamed {b / 2**30:.1f} GiB"
          + (f" = {b / x['time_total_ms'] / 1e6:.2f} GB/s" if b else ""))
if not it: print(open(path).read()[-800:])
PY
      ;;
  esac
done
