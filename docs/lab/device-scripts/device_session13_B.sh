#!/usr/bin/env bash
# Session 13, helper B (issue 37, k ≤ 128 at d = 128 and 256): the resident summary pass with
# two 8-warp halves a block (16 warps a multiprocessor, one shared centroid tile) and/or a
# shorter list (8 candidates) against main's build (bin/kmeans-cli-base in the pack).
# The experiment build takes KMS_EXP_RESIDENT = off | HALVES:CAP[:STAGES] (default: its rule,
# two halves × 32 where ≥ 3 stages a half fit, else two halves × 8, else one × 32).
#   checks (~80 s, GPU shared): device_highd.sh checks (the filter's tests, the lockstep
#     suites, compute-sanitizer memcheck and racecheck of filter_kernel, small) under the
#     default rule, while the ab's points are generated.
#   ab (GPU alone): ms per step, assignment / step (medians of steps 3-8), f32, tf32 filter,
#     base and the variants in turn; no row starts after KMS_B_AB_BUDGET s (default 80).
#   profile (the time left up to KMS_B_TOTAL, default 230 s): ncu of uniform 10^6 × 128,
#     k = 100 with two halves × 32 (per-kernel times, filter occupancy and stalls).
# Usage (repo root): KMS_DEVICE_CARRY=.devcarry-b13 OUT=DIR bash .devcarry-b13/run.sh
set -uo pipefail
export KMS_DEVICE_CARRY=${KMS_DEVICE_CARRY:-.devcarry-b13}
root=$(cd "$(dirname "$0")/../../.." && pwd)  # the carried copy (.devcarry-b13/run.sh) has /.. here
scripts=$root/docs/lab/device-scripts
source "$scripts/device_common.sh"   # $work, $cli, $out, generate_points
start=$SECONDS
record_device
dir=/dev/shm; [ -d "$dir" ] && [ -w "$dir" ] || dir=$work
# The ab's points, generated while the checks run.
(for spec in uniform:1000000:128 uniform:1000000:256 uniform:1000000:64 blobs:1000000:128 blobs:1000000:256; do
   IFS=: read -r kind n d <<< "$spec"
   generate_points "$kind" "$n" "$d" "$dir/kms-b13-$kind-$n-$d.npy"
 done > "$out/generate.log" 2>&1) &
gen=$!
echo "== checks (default rule)"
KMS_CHECKS_LIMIT=${KMS_CHECKS_LIMIT:-110} OUT="$out/checks" "$scripts/device_highd.sh" checks 2>&1 | tail -12
grep -h -E "^FAIL|Loc:|returned FALSE" "$out"/checks/*.log | head -20
echo "== checks took $((SECONDS - start)) s"
wait $gen
cat "$out/generate.log"

ab_row() {  # RUN... → "assign / step ms; certified / listed / all-k %, extra distances a point (medians of steps 3-8)"
  "$@" --report json 2>"$errf" | N=$n K=$k python3 -c '
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
print("%.3f / %.3f ms (update %.3f); certified %.1f, listed %.1f, all k %.1f %%, %.2f more distances a point" % (
    med(lambda r: r["time_assign_ms"]), med(lambda r: r["time_total_ms"]), med(lambda r: r["time_update_ms"]),
    med(cert), med(listed), med(full), med(extra)))'
}
echo "== ab: ms per step, assignment / step (medians of steps 3-8), f32, --variant shared (tf32 filter)"
echo "   base: main's build; new@SPEC: this build, KMS_EXP_RESIDENT=SPEC (HALVES:CAP[:STAGES] or off); new: its rule"
ab_start=$SECONDS
rows="uniform:1000000:128:100=base,new@1:32,new@2:32,new@1:8,new@2:8
      uniform:1000000:256:100=base,new@off,new@1:32,new@2:8,new@2:8:2
      uniform:1000000:64:100=base,new@2:32,new@2:8,new@1:8
      blobs:1000000:128:100=base,new@2:32,new@1:8,new@2:8
      blobs:1000000:256:100=base,new@off,new@2:8
      uniform:1000000:128:1000=base,new
      uniform:1000000:128:100=base,new@2:32"
errf=$out/ab-run.err
for row in ${KMS_B_AB_ROWS:-$rows}; do
  IFS=: read -r kind n d k <<< "${row%%=*}"
  x="$dir/kms-b13-$kind-$n-$d.npy"
  [ -f "$x" ] || { echo "$kind n=$n d=$d: no points"; continue; }
  ws=${row#*=}
  for w in ${ws//,/ }; do
    [ $((SECONDS - ab_start)) -gt "${KMS_B_AB_BUDGET:-80}" ] && { echo "(budget spent: $kind $d $k $w not run)"; continue; }
    exe=$cli; envs=(env -u KMS_EXP_RESIDENT KMS_EXP_VERBOSE=1)
    [ "$w" = base ] && exe=$work/bin/kmeans-cli-base
    [ "${w#new@}" != "$w" ] && envs=(env KMS_EXP_RESIDENT="${w#new@}" KMS_EXP_VERBOSE=1)
    r=$(ab_row timeout 20 "${envs[@]}" "$exe" run --input "$x" --k "$k" --init random --seed 3 \
      --solver lloyd --backend cuda --variant shared --precision f32 --max-iter 8 --tol 0)
    echo "$kind n=$n d=$d k=$k $w: $r [$(grep -m1 '^resident:' "$errf" | cut -c11-)]"
  done
done 2>&1 | tee "$out/ab.txt"
echo "== ab took $((SECONDS - ab_start)) s"
left=$(( ${KMS_B_TOTAL:-230} - (SECONDS - start) ))
if [ "$left" -gt 25 ]; then
  echo "== profile (two halves × 32), $left s left"
  KMS_EXP_RESIDENT=2:32 KMS_PROFILE_SHAPES="uniform:1000000:128:100" KMS_PROFILE_WHICH="new" KMS_PROFILE_STALLS=1 \
    OUT="$out/profile" timeout "$left" "$scripts/device_highd.sh" profile 2>&1 | grep -v "^ *(1,1,1)\|DeviceRadix\|DeviceScan"
fi
rm -f "$dir"/kms-b13-*.npy
echo "== took $((SECONDS - start)) s"
