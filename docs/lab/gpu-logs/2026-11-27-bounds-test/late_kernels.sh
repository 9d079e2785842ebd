#!/usr/bin/env bash
# After the change: where a late Hamerly step goes at 10^7 x 2-D, k = 100, f32. The
# per-kernel device time of steps 41-60 (step-gaps' gaps.sh), the listed points a step,
# then one late launch of the list's search kernel under ncu.
set -u
export OUT=${OUT:-$PWD/device-out}
source docs/lab/device-scripts/device_common.sh > /dev/null
record_device
bash docs/lab/gpu-logs/2026-11-27-step-gaps/gaps.sh "10000000 2 100 hamerly"
data=/dev/shm/kms-gaps-10000000-2.npy
$cli run --input "$data" --k 100 --solver hamerly --backend cuda --precision f32 --init random --seed 3 --tol 0 \
  --max-iter 60 --report json > /tmp/late.json 2>&1
python3 -c "
import json
it=[json.loads(l) for l in open('/tmp/late.json') if l.startswith('{\"type\":\"iteration\"')]
for r in it[40:60:5]:
    print('step', r['iteration'], 'distances', r['point_centroid_distances'], 'skips', r['bound_skips'], 'changed', r['labels_changed'])"
ncu --clock-control none --cache-control none -k regex:low_d_search --launch-skip 50 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section InstructionStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_sample_count,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio \
  $cli run --input "$data" --k 100 --solver hamerly --backend cuda --precision f32 --init random --seed 3 --tol 0 \
  --max-iter 60 --report json 2>&1 | grep -vE '^\{' | grep -E 'low_d|Duration|Throughput|Occupancy|Registers|Grid|Block Size|Eligible|Issued|Active Warps|Warp Cycles|pcsamp|bytes|inst_executed|Executed Ipc'
