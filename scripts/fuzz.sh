#!/usr/bin/env bash
# Builds the loaders' libFuzzer targets (tests/fuzz) with clang-14, ASan and UBSan
# in build-fuzz/ (or $KMS_FUZZ_BUILD_DIR), and runs each for SECONDS (default 60)
# with tests/corpus as seeds. New interesting inputs go to build-fuzz/corpus-NAME/
# (the committed corpus is only read); a crash leaves build-fuzz/crash-NAME-* and
# ends the script with status 1. Needs clang-14 and libfuzzer-14-dev
# (scripts/install-deps.sh --fuzz).
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: fuzz_text fuzz_npy fuzz_benchmark_set fuzz_options
#                                             fuzz_grammars (.kmsrun files, generator specs, --k-range, geo tables)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_text fuzz_npy fuzz_benchmark_set fuzz_options fuzz_grammars)
build_dir=${KMS_FUZZ_BUILD_DIR:-build-fuzz}
jobs=${KMS_JOBS:-2}
build_nice=${KMS_BUILD_NICE:-0}  # the build's niceness (scripts/test.sh: 15, beside the other builds)
cxx=${KMS_FUZZ_CXX:-clang++-14}
command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (scripts/install-deps.sh --fuzz)" >&2; exit 1; }

# -O1 -g1 (line tables: a crash's stack names file:line) for the code fuzz inputs reach;
# core/CMakeLists.txt builds the rest of the engine, which fuzz_options links through the
# solver registry, plain at -O0. At -O2 -g, all instrumented, the build took 150 s of CI's
# 2 cores; 65 s now.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DKMS_FUZZ=ON -DKMS_WITH_CUDA=OFF -DKMS_WITH_QT=OFF -DKMS_BUILD_TESTS=OFF -DKMS_BUILD_BENCH=OFF >/dev/null
nice -n "$build_nice" cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"
# KMS_FUZZ_BUILD_ONLY=1: build, run nothing (scripts/test.sh builds beside other work and
# fuzzes once the machine is free, so that each target gets its seconds of a whole core).
[ -z "${KMS_FUZZ_BUILD_ONLY:-}" ] || exit 0

# One process, one thread per target, $jobs targets at a time (the 2-core CI box
# runs two side by side: the same time per target in half the wall time). The
# loaders are fast enough that one worker per target suffices. -rss_limit_mb: the
# 4 GiB stream bound is never reached by fuzz inputs; a large allocation is a finding.
run_target() {  # TARGET: its log says what it found
  local target=$1 corpus="$build_dir/corpus-$1" seeds=tests/corpus
  mkdir -p "$corpus"
  [ "$target" = fuzz_options ] && seeds=tests/fuzz/options-seeds
  [ "$target" = fuzz_grammars ] && seeds=tests/fuzz/grammar-seeds
  OMP_NUM_THREADS=1 ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
    "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$build_dir/crash-$target-" -print_final_stats=1 \
      "$corpus" "$seeds" >"$build_dir/$target.log" 2>&1
}

source scripts/parallel.sh
run_in_parallel "$jobs" run_target "${targets[@]}"
status=0
for target in "${targets[@]}"; do  # reported in the order asked, each with its own exit status
  seeds=tests/corpus
  [ "$target" = fuzz_options ] && seeds=tests/fuzz/options-seeds
  [ "$target" = fuzz_grammars ] && seeds=tests/fuzz/grammar-seeds
  log="$build_dir/$target.log"
  echo "== $target: $seconds s, seeds $seeds ($(ls "$seeds" | wc -l) files) + $build_dir/corpus-$target"
  if [ "${exit_status_of[$target]}" != 0 ]; then
    status=1
    echo "!! $target found a problem: see $log and $build_dir/crash-$target-*" >&2
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" "$log" | sed 's/^/   /' || true
  grep -E "cov: [0-9]+" "$log" | tail -1 | sed 's/^/   last: /' || true
done
exit $status
