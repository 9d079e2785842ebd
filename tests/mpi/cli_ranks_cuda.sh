#!/usr/bin/env bash
# `mpiexec -n M kmeans-cli run --backend cuda ...`: each rank takes the GPU of its
# local rank (mod the visible devices), or drives its --devices, and solves its block of rows, the package sums
# combined in the single process's tree; the labels and centroid files must equal,
# byte for byte, one process's `--devices 0` run (itself the CPU's bits). Skips
# (exit 77) without a CUDA device.
# usage: cli_ranks_cuda.sh KMEANS_CLI MPIEXEC [RANKS ...]   (default ranks: 2 3 4)
set -uo pipefail
cli=$1
mpiexec=$2
shift 2
ranks_list=("$@")
[ ${#ranks_list[@]} -eq 0 ] && ranks_list=(2 3 4)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
mpi=("$mpiexec" --oversubscribe --mca mpi_yield_when_idle 1 --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
if ! probe=$("$cli" run --generate uniform:n=100,d=2 --k 2 --backend cuda --max-iter 1 2>&1); then
  echo "SKIP: no CUDA device for GPU ranks: $(echo "$probe" | tail -n 1)"
  exit 77
fi
summary() {
  tail -n 1 "$1" | grep -o '"\(inertia\|iterations\|stop_reason\)":[^,}]*' | tr '\n' ' '
}
failures=0
runs=0
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
# One process on one device (the package update: the CPU's bits), then M ranks.
compare_ranks() {
  "$cli" "${args[@]}" --devices 0 --labels-out "$dir/labels-1" --centroids-out "$dir/centroids-1" > "$dir/out-1" ||
    { fail "$1: one process failed: $(tail -n 2 "$dir/out-1")"; return; }
  for ranks in "${ranks_list[@]}"; do
    runs=$((runs + 1))
    "${mpi[@]}" -n "$ranks" "$cli" "${args[@]}" --labels-out "$dir/labels-$ranks" --centroids-out "$dir/centroids-$ranks" \
      > "$dir/out-$ranks" 2> "$dir/err-$ranks" || { fail "$1, $ranks ranks: exit $?: $(tail -n 3 "$dir/err-$ranks")"; continue; }
    what="$1, $ranks ranks"
    cmp -s "$dir/labels-1" "$dir/labels-$ranks" || fail "$what: labels differ"
    cmp -s "$dir/centroids-1" "$dir/centroids-$ranks" || fail "$what: centroids differ"
    [ "$(summary "$dir/out-1")" = "$(summary "$dir/out-$ranks")" ] ||
      fail "$what: summary $(summary "$dir/out-$ranks") vs $(summary "$dir/out-1")"
    grep -q '"devices"' "$dir/out-$ranks" && fail "$what: a rank reported --devices"
    echo "$what: $(summary "$dir/out-$ranks")"
  done
}
awk 'BEGIN { for (i = 0; i < 400000; ++i) print 0.5 + (i * 7919) % 5 }' > "$dir/weights.txt"
for case in "lloyd f32 kmeans++ 100" "lloyd f64 random 1000" "hamerly f64 kmeans++ 100" "exponion f32 random 300" \
            "elkan f32 maximin 20" "yinyang f64 kmeans++ 100 weights" "lloyd f32 random 5 weights" \
            "hamerly f64 kmeans-parallel 200"; do
  read -r solver precision init k weighted <<<"$case"
  args=(run --generate blobs:n=400000,k=50,d=2,spread=0.05 --seed 4 --k "$k" --solver "$solver" --precision "$precision"
        --init "$init" --max-iter 30 --report json --backend cuda)
  [ -n "${weighted:-}" ] && args+=(--weights "$dir/weights.txt")
  compare_ranks "generated 2-D, $case"
done
# A .npy read by blocks (each rank its rows only), 16-D (the device's own sorted package path).
"$cli" generate --generate uniform:n=300000,d=16 --seed 9 --out "$dir/x.npy" > /dev/null
for case in "lloyd f32 kmeans++ 64" "hamerly f64 random 100"; do
  read -r solver precision init k <<<"$case"
  args=(run --input "$dir/x.npy" --k "$k" --solver "$solver" --precision "$precision" --init "$init" --seed 2
        --max-iter 20 --report json --backend cuda)
  compare_ranks ".npy read by blocks, 16-D, $case"
done
# The CPU with the same options: the same bits when the labels agree (float may differ on ties).
args=(run --generate blobs:n=400000,k=50,d=2,spread=0.05 --seed 4 --k 100 --solver hamerly --precision f64
      --init kmeans++ --max-iter 30 --report json)
"$cli" "${args[@]}" --backend cuda --devices 0 --centroids-out "$dir/c-gpu" --labels-out "$dir/l-gpu" > /dev/null
"$cli" "${args[@]}" --backend omp --centroids-out "$dir/c-cpu" --labels-out "$dir/l-cpu" > /dev/null
cmp -s "$dir/c-gpu" "$dir/c-cpu" && cmp -s "$dir/l-gpu" "$dir/l-cpu" || fail "the GPU's --devices 0 files differ from the CPU's (f64)"
# Ranks that each drive several devices (--devices under ranks): each rank's block split again
# over its devices, the same bits as one process on one device. KMS_RANK_DEVICES: the lists to
# try (default "0,0": two blocks a rank on device 0, which any machine with a GPU has; "all"
# shares a machine's GPUs out among its ranks).
for devices in ${KMS_RANK_DEVICES:-0,0}; do
  for case in "lloyd f64 kmeans++ 100" "hamerly f32 random 1000" "yinyang f64 kmeans++ 100 weights" \
              "lloyd f32 kmeans-parallel 300"; do
    read -r solver precision init k weighted <<<"$case"
    args=(run --generate blobs:n=400000,k=50,d=2,spread=0.05 --seed 4 --k "$k" --solver "$solver" --precision "$precision"
          --init "$init" --max-iter 30 --report json --backend cuda)
    [ -n "${weighted:-}" ] && args+=(--weights "$dir/weights.txt")
    "$cli" "${args[@]}" --devices 0 --labels-out "$dir/labels-1" --centroids-out "$dir/centroids-1" > "$dir/out-1"
    for ranks in 2 3; do
      runs=$((runs + 1))
      what="ranks x --devices $devices, $case, $ranks ranks"
      "${mpi[@]}" -n "$ranks" "$cli" "${args[@]}" --devices "$devices" --labels-out "$dir/labels-$ranks" \
        --centroids-out "$dir/centroids-$ranks" > "$dir/out-$ranks" 2> "$dir/err-$ranks" ||
        { fail "$what: exit $?: $(tail -n 3 "$dir/err-$ranks")"; continue; }
      cmp -s "$dir/labels-1" "$dir/labels-$ranks" || fail "$what: labels differ"
      cmp -s "$dir/centroids-1" "$dir/centroids-$ranks" || fail "$what: centroids differ"
      echo "$what: $(summary "$dir/out-$ranks") $(tail -n 1 "$dir/out-$ranks" | grep -o '"devices":\[[^]]*\]')"
    done
  done
done
# Ranks listing different numbers of devices are refused on every rank, with the reason.
"${mpi[@]}" -n 2 bash -c '[ "$OMPI_COMM_WORLD_RANK" = 0 ] && d=0,0 || d=0; exec "$0" "$@" --devices $d' "$cli" "${args[@]}" \
  > /dev/null 2> "$dir/refused" && fail "ranks with unequal --devices ran"
grep -q "same number of devices" "$dir/refused" || fail "unequal --devices under ranks: no message: $(tail -n 2 "$dir/refused")"
echo "cli_ranks_cuda: $runs runs over GPU ranks, $failures failures: $([ "$failures" = 0 ] && echo PASS || echo FAIL)"
[ "$failures" = 0 ]
