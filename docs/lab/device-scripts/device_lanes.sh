#!/usr/bin/env bash
# Independent lanes at once on a many-GPU machine, lane i on GPU i (CUDA_VISIBLE_DEVICES) and
# its own share of the cores (or NAME@FIRST-LAST: those), so that GPU timings do not share a
# device. Each lane is "NAME|CARRY|COMMAND...": its command runs in the repository root with OUT=$OUT/NAME and
# KMS_DEVICE_CARRY=CARRY (a lane whose CARRY/pack.tar.xz is absent is skipped); its
# summary goes to $OUT/NAME.txt (it comes back even if the call is cut short).
# KMS_AFTER: one more command, run alone on the whole machine once every lane is done
# (e.g. a scaling over every GPU). KMS_LANE_TIMEOUT: seconds each lane may take (0: no limit).
# Usage: OUT=DIR device_lanes.sh "a|.devcarry-x|cmd ..." ...
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
final=${OUT:?}
mkdir -p "$final"  # the lanes write their summaries beside their folders (session 12 lost a phase to a missing $OUT/lanes)
cores=$(nproc)
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
lanes=$#
share=$(( cores / (lanes > 0 ? lanes : 1) ))
start=$SECONDS
i=0
for lane in "$@"; do
  IFS='|' read -r name carry command <<< "$lane"
  first=$(( i * share )); last=$(( first + share - 1 ))
  if [[ $name == *@* ]]; then  # NAME@FIRST-LAST: the lane's own cores
    range=${name#*@}; name=${name%@*}; first=${range%-*}; last=${range#*-}
  fi
  gpu=$(( gpus > 0 ? i % gpus : 0 ))
  (
    if [ ! -f "$root/$carry/pack.tar.xz" ]; then echo "lane $name: no $carry/pack.tar.xz: skipped"; exit 0; fi
    mkdir -p "$final/$name"
    cd "$root" && CUDA_VISIBLE_DEVICES=$gpu OUT="$final/$name" KMS_DEVICE_CARRY=$carry \
      timeout "${KMS_LANE_TIMEOUT:-0}" taskset -c "$first-$last" bash -c "$command"
    echo "lane $name (GPU $gpu, cores $first-$last): exit $? after $((SECONDS - start)) s"
  ) > "$final/$name.txt" 2>&1 &
  i=$((i + 1))
done
wait
echo "lanes done in $((SECONDS - start)) s ($lanes lanes, $gpus GPUs, $cores cores)"
if [ -n "${KMS_AFTER:-}" ]; then
  ( cd "$root" && bash -c "$KMS_AFTER" ) > "$final/after.txt" 2>&1
  echo "after: exit $? at $((SECONDS - start)) s"
fi
for f in "$final"/*.txt; do echo "=== ${f#$final/}"; tail -n 30 "$f"; done
