# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: runs a function over a list
# of items, a few at a time, keeping each one's exit status.
#   run_in_parallel JOBS FUNCTION ITEM...
# calls FUNCTION ITEM in the background for every item, at most JOBS at once
# (a new one starts as soon as any ends), waits for all, and sets
# exit_status_of[ITEM] to each call's exit status. Needs bash 5.1 (wait -p).
declare -A exit_status_of=()

run_in_parallel() {
  local jobs=$1 run=$2 item
  shift 2
  local -A item_of=()  # running: pid -> item
  for item in "$@"; do
    while [ ${#item_of[@]} -ge "$jobs" ]; do reap_one_job; done
    "$run" "$item" &
    item_of[$!]=$item
  done
  while [ ${#item_of[@]} -gt 0 ]; do reap_one_job; done
}

reap_one_job() {  # (run_in_parallel's helper: item_of is its local)
  local pid code=0
  wait -n -p pid "${!item_of[@]}" || code=$?
  exit_status_of[${item_of[$pid]}]=$code
  unset "item_of[$pid]"
}
