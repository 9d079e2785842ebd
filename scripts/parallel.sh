# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: runs a function over a list
# of items, a few at a time, keeping each one's exit status.
#   run_in_parallel JOBS FUNCTION ITEM...
# calls FUNCTION ITEM in the background for every item, at most JOBS at once
# (a new one starts as soon as any ends), waits for all, and sets
# exit_status_of[ITEM] to each call's exit status. Items must be distinct and
# non-empty. Needs bash 5.1 (wait -n -p).
if ((BASH_VERSINFO[0] < 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] < 1))); then
  echo "parallel.sh: bash 5.1 or later needed (this is $BASH_VERSION)" >&2
  exit 1
fi
declare -gA exit_status_of=()

run_in_parallel() {
  local _rip_jobs=$1 _rip_run=$2 _rip_item
  shift 2
  [[ "$_rip_jobs" =~ ^[1-9][0-9]*$ ]] || { echo "run_in_parallel: jobs must be 1 or more, not '$_rip_jobs'" >&2; return 1; }
  local -A _rip_seen=()
  for _rip_item in "$@"; do
    [ -n "$_rip_item" ] || { echo "run_in_parallel: an empty item" >&2; return 1; }
    [ -z "${_rip_seen[$_rip_item]:-}" ] || { echo "run_in_parallel: '$_rip_item' given twice" >&2; return 1; }
    _rip_seen[$_rip_item]=1
  done
  local -A _rip_item_of=()  # running: pid -> item
  for _rip_item in "$@"; do
    while [ ${#_rip_item_of[@]} -ge "$_rip_jobs" ]; do reap_one_job || return; done
    "$_rip_run" "$_rip_item" &
    _rip_item_of[$!]=$_rip_item
  done
  while [ ${#_rip_item_of[@]} -gt 0 ]; do reap_one_job || return; done
}

reap_one_job() {  # (run_in_parallel's helper: _rip_item_of is its local)
  local _rip_pid= _rip_code=0
  wait -n -p _rip_pid "${!_rip_item_of[@]}" || _rip_code=$?
  if [ -z "$_rip_pid" ]; then  # no job reaped (interrupted): give up with the wait's status
    echo "run_in_parallel: wait returned $_rip_code without a job" >&2
    return 1
  fi
  exit_status_of[${_rip_item_of[$_rip_pid]}]=$_rip_code
  unset "_rip_item_of[$_rip_pid]"
}
