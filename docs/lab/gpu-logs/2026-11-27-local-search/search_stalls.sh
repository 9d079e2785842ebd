#!/usr/bin/env bash
# Stall samples and source hot spots of one late launch of Hamerly's low-d search (base CLI),
# 10^7 x 2-D, k = 100, f32. Usage: search_stalls.sh (from the repository root, on the device).
set -u
xz -dc .devcarry-gpu/base-cli.xz > /tmp/b && chmod +x /tmp/b
data=/dev/shm/kms-ncu-1e7-2.npy
[ -f "$data" ] || /tmp/b generate --generate blobs:n=10000000,d=2,k=100 --seed 7 --out "$data" > /dev/null
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
ncu --clock-control none --cache-control none -k regex:low_d_search --launch-skip 50 --launch-count 1 \
  --section WarpStateStats --section SourceCounters --metrics smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_branch_resolving,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_sample_count \
  /tmp/b run --input "$data" --k 100 --init random --seed 3 --backend cuda --solver hamerly --precision f32 \
  --max-iter 60 --tol 0 --report json 2>&1 | grep -vE '^\{' | grep -E "pcsamp|Stall|stall|Warp Cycles|Location|Address|Source|0x|Branch|Uncoalesced|L1TEX|shared" | head -70
