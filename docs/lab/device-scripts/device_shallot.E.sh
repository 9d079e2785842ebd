#!/usr/bin/env bash
# On the CUDA machine: issue 41's CUDA Shallot (kernels/exponion.cu with the tracked second).
#   checks (first): the lockstep suites (every registered CUDA solver, Shallot among them:
#     test_cuda_solvers doubleMatchesCpuLloyd, floatMatchesLloydAndCpu, shallotCentresOnTheSecond;
#     test_cuda_weights; test_cuda_devices streamedBoundedSolversGiveTheResidentBits) and
#     compute-sanitizer memcheck and racecheck of the ball walk kernels (exponion_walk_kernel,
#     Shallot's instantiations included) on the small cases (KMS_GPU_TEST_SMALL=1), all at once,
#     each cut at KMS_SHALLOT_CHECKS seconds (130) → DIR/checks.txt.
#   converge (then, on the idle GPU): CUDA Lloyd, Hamerly, Exponion and Shallot, f32, cuda-shared,
#     from the same random initial centroids (seed 3) to convergence (tol 0: no label changes) or
#     KMS_SHALLOT_MAX_ITER iterations (300), at n = KMS_SHALLOT_N (10^6), d in {2, 8, 32},
#     k in {100, 1000}, blobs (100 blobs) and uniform; the time in steps, the distances, the
#     balls centred on the second; all four must stop at the same iteration with the same
#     inertia (within 1e-6: Lloyd's run). k = 1000 first; no shape starts later than
#     KMS_SHALLOT_TOTAL − 35 seconds (230 − 35) after the script's start (a run is cut at 60 s)
#     → DIR/converge.txt, DIR/converge.jsonl.
#   streamed (alone): test_cuda_devices streamedBoundedSolversGiveTheResidentBits on its small cases
#     (KMS_GPU_TEST_SMALL=1; in full it outlasted checks' 120 s on an H200), cut at
#     KMS_SHALLOT_CHECKS seconds → DIR/streamed.txt.
# Pack (here): KMS_DEVICE_CARRY=.devcarry-shallot docs/lab/device-scripts/device_pack.sh build
# Usage: OUT=DIR KMS_DEVICE_CARRY=.devcarry-shallot docs/lab/device-scripts/device_shallot.sh [checks] [converge] [streamed]
set -uo pipefail
export KMS_DEVICE_CARRY=${KMS_DEVICE_CARRY:-.devcarry-shallot}
source "$(dirname "$0")/device_common.sh"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(checks converge)
record_device > /dev/null
total=${KMS_SHALLOT_TOTAL:-230}

converge() {
  local n=${KMS_SHALLOT_N:-1000000} shape kind d k solver dir=/dev/shm
  [ -d "$dir" ] && [ -w "$dir" ] || dir=$work
  : > "$out/converge.jsonl"
  echo "f32, cuda-shared, n = $n, random init seed 3, tol 0, at most ${KMS_SHALLOT_MAX_ITER:-300} iterations; ms: the steps' sum"
  for shape in ${KMS_SHALLOT_SHAPES:-blobs:2:1000 uniform:2:1000 blobs:8:1000 uniform:8:1000 blobs:32:1000 uniform:32:1000 \
                blobs:2:100 uniform:2:100 blobs:8:100 uniform:8:100 blobs:32:100 uniform:32:100}; do
    [ "$SECONDS" -gt $((total - 35)) ] && { echo "(time spent: $shape not run)"; continue; }
    IFS=: read -r kind d k <<< "$shape"
    generate_points "$kind" "$n" "$d" "$dir/kms-shallot.npy" || continue
    for solver in lloyd hamerly exponion shallot; do
      timeout 60 "$cli" run --input "$dir/kms-shallot.npy" --k "$k" --solver "$solver" --backend cuda --variant shared \
        --precision f32 --init random --seed 3 --max-iter "${KMS_SHALLOT_MAX_ITER:-300}" --tol 0 --report json \
        > "$work/run.jsonl" 2> "$work/err"
      python3 - "$kind:$d:$k" "$solver" "$?" "$work/err" "$out/converge.jsonl" "$work/run.jsonl" <<'PY'
import json, sys
shape, solver, status, err, sink, run = sys.argv[1:]
rows = [json.loads(l) for l in open(run) if l.startswith("{")]
its = [r for r in rows if r.get("type") == "iteration"]
if status != "0" or not its:
    print(f"{shape:16} {solver:8} failed ({status}): {open(err).read().strip()[-300:]}"); sys.exit()
summary = rows[-1]
row = {"shape": shape, "solver": solver, "iterations": len(its),
       "total_ms": sum(r["time_total_ms"] for r in its),
       "late_ms": sorted(r["time_total_ms"] for r in its[2:])[len(its[2:]) // 2] if len(its) > 2 else None,
       "distances": sum(r.get("point_centroid_distances", 0) for r in its),
       "cc_distances": sum(r.get("centroid_centroid_distances", 0) for r in its),
       "second_centred": sum(r.get("second_centred", 0) for r in its),
       "inertia": summary.get("inertia"), "stop": summary.get("stop_reason")}
print(f"{shape:16} {solver:8} {row['iterations']:4d} its {row['total_ms']:9.1f} ms  median step {row['late_ms'] or 0:7.3f} ms"
      f"  {row['distances'] / 1e6:10.1f} M distances  {row['second_centred']:10d} on the second")
with open(sink, "a") as f:
    f.write(json.dumps(row) + "\n")
PY
    done
    rm -f "$dir/kms-shallot.npy"
  done
  # Per shape: every solver's iterations and final inertia equal Lloyd's; Shallot against Exponion.
  python3 - "$out/converge.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
shapes = list(dict.fromkeys(r["shape"] for r in rows))
print("\nshape            iters same  exponion/shallot ms  shallot/exponion distances  exponion/lloyd ms  shallot/lloyd ms")
for s in shapes:
    by = {r["solver"]: r for r in rows if r["shape"] == s}
    if "lloyd" not in by: continue
    rel = lambda r: abs(r["inertia"] - l["inertia"]) / max(abs(l["inertia"]), 1e-300)
    l = by["lloyd"]
    same = all(r["iterations"] == l["iterations"] and rel(r) <= 1e-6 for r in by.values())
    e, sh = by.get("exponion"), by.get("shallot")
    if not (e and sh): print(f"{s:16} {l['iterations']:5d} {'yes' if same else 'NO'}  (exponion or shallot missing)"); continue
    print(f"{s:16} {l['iterations']:5d} {'yes ' if same else 'NO  '}  {e['total_ms'] / sh['total_ms']:18.3f}"
          f"  {sh['distances'] / max(1, e['distances']):26.3f}  {l['total_ms'] / e['total_ms']:17.3f}  {l['total_ms'] / sh['total_ms']:16.3f}")
PY
}

checks() {
  local bin=$work/bin limit=${KMS_SHALLOT_CHECKS:-130} f
  echo "checks: each cut at $limit s"
  for f in doubleMatchesCpuLloyd floatMatchesLloydAndCpu shallotCentresOnTheSecond; do
    (timeout "$limit" "$bin/test_cuda_solvers" $f > "$out/solvers-$f.log" 2>&1; echo "test_cuda_solvers $f: exit $?") &
  done
  (timeout "$limit" "$bin/test_cuda_weights" > "$out/weights.log" 2>&1; echo "test_cuda_weights: exit $?") &
  (timeout "$limit" "$bin/test_cuda_devices" streamedBoundedSolversGiveTheResidentBits > "$out/devices-streamed.log" 2>&1
   echo "test_cuda_devices streamedBoundedSolversGiveTheResidentBits: exit $?") &
  for run in memcheck:floatMatchesLloydAndCpu racecheck:doubleMatchesCpuLloyd; do
    (KMS_GPU_TEST_SMALL=1 timeout "$limit" compute-sanitizer --tool ${run%:*} --kernel-name kns=exponion_walk_kernel \
       --error-exitcode 9 "$bin/test_cuda_solvers" ${run#*:} > "$out/${run%:*}.log" 2>&1
     echo "compute-sanitizer ${run%:*} (exponion_walk_kernel, ${run#*:}, small): exit $?" \
          "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/${run%:*}.log")") &
  done
  wait
  grep -h -E "^Totals|FAIL|differ|QINFO.*shallot" "$out"/solvers-*.log "$out"/weights.log "$out"/devices-streamed.log | head -40
}

streamed() {
  local limit=${KMS_SHALLOT_CHECKS:-130}
  KMS_GPU_TEST_SMALL=1 timeout "$limit" "$work/bin/test_cuda_devices" streamedBoundedSolversGiveTheResidentBits \
    > "$out/devices-streamed-small.log" 2>&1
  echo "test_cuda_devices streamedBoundedSolversGiveTheResidentBits (small, cut at $limit s): exit $?"
  grep -h -E "^Totals|FAIL|QINFO|Loc:" "$out/devices-streamed-small.log" | head -20
}

for step in "${steps[@]}"; do
  case "$step" in
    converge) converge 2>&1 | tee "$out/converge.txt" ;;
    checks) checks 2>&1 | tee "$out/checks.txt" ;;
    streamed) streamed 2>&1 | tee "$out/streamed.txt" ;;
    *) echo "device_shallot.sh: checks, converge or streamed, not '$step'" >&2; exit 2 ;;
  esac
done
