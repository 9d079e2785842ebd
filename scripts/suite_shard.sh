#!/usr/bin/env bash
# One shard of a Qt Test suite, for CTest (tests/CMakeLists.txt, KMS_TEST_SHARDS):
#   scripts/suite_shard.sh SUITE SHARD SHARDS
# runs the suite's test functions number SHARD, SHARD + SHARDS, SHARD + 2 SHARDS, ... (1-based,
# in the order `SUITE -functions` lists them), so SHARDS such tests together run every function
# once. A long suite split this way runs on both cores instead of last on one (the ASan
# test_solvers was ~45 % of its CTest's CPU time).
set -euo pipefail
[ $# -eq 3 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] && [[ "$3" =~ ^[1-9][0-9]*$ ]] && [ "$2" -le "$3" ] ||
  { echo "usage: suite_shard.sh SUITE SHARD SHARDS (1 <= SHARD <= SHARDS)" >&2; exit 2; }
suite=$1 shard=$2 shards=$3
listed=$("$suite" -functions)
functions=()
index=0
while read -r name; do
  [ -n "$name" ] || continue
  if (( index % shards == shard - 1 )); then functions+=("${name%()}"); fi
  index=$((index + 1))
done <<< "$listed"
if [ ${#functions[@]} -eq 0 ]; then
  echo "suite_shard.sh: $suite lists $index functions, none for shard $shard of $shards" >&2
  exit 1
fi
echo "suite_shard.sh: $suite, shard $shard of $shards: ${#functions[@]} of its $index functions"
exec "$suite" "${functions[@]}"
