#!/usr/bin/env bash
# Sanitizer builds of the engine, the CLI and the CPU test suites (no CUDA, no Qt
# widgets):
#   asan  build-asan/: AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer),
#         every CPU suite through CTest (UB is fatal: -fno-sanitize-recover). Built
#         with clang-14 and libomp: the same checks as g++'s at -O1 -g1, in 504
#         CPU-s for the build and suites where g++ took 686 (g++ spends 2-3x as long
#         generating the instrumented code: fit.cpp 11 s against 24; 2026-12-08, this
#         2-core VM, nothing else running). KMS_ASAN_CXX=g++ builds with g++ and
#         libgomp, the compiler and runtime the project ships with; both pass.
#         libomp 14 leaks a 1440-byte thread descriptor whenever a hot team shrinks
#         (omp_set_num_threads(8) then (3): LeakSanitizer reports it, with no frame of
#         ours); KMP_HOT_TEAMS_MAX_LEVEL=0 turns hot teams off, so the leak check
#         stays whole (no suppression, which would hide our own leaks inside parallel
#         regions too).
#   tsan  build-tsan/: clang-14 + libomp. ThreadSanitizer on the suites that run OpenMP code (solvers,
#         init, scores, generate, the parallel text parser). libomp is not built with
#         TSan; its barriers and tasks are made visible to TSan by Archer, LLVM's
#         OMPT tool (libarcher.so, shipped with libomp-14-dev), loaded through
#         OMP_TOOL_LIBRARIES. No suppressions are used.
#   scripts/sanitize.sh [asan|tsan|all]      (default all)
# Environment: KMS_JOBS (build jobs, default 2), KMS_BUILD_NICE (the builds' niceness, default 0;
# scripts/test.sh: ASan 10, TSan 15, beside the Release build), KMS_ASAN_CXX (default clang++-14),
# KMS_TSAN_CXX (default clang++-14).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
jobs=${KMS_JOBS:-2}
build_nice=${KMS_BUILD_NICE:-0}
asan_cxx=${KMS_ASAN_CXX:-clang++-14}
tsan_cxx=${KMS_TSAN_CXX:-clang++-14}

# Every CPU suite (the GPU suites skip without a device, the studio ones need Qt widgets).
cpu_tests=(test_io test_io_special test_corpus test_cli test_generate test_init test_seeding test_scores test_solvers test_out_of_core
           test_sklearn_oracle test_sklearn_fit test_weights test_sweep test_geo test_gemm_assign test_run_file test_sparse)
# The suites whose code runs OpenMP parallel regions.
omp_tests=(test_solvers test_init test_seeding test_scores test_generate test_io test_weights test_gemm_assign test_sparse
           test_out_of_core)

# Optimisation and debug info (-g1: line tables, for g++ and clang) are all a sanitizer's stack trace needs
# (file:line per frame); full debug info and -O2 made the ASan build take twice as long
# (test_io.cpp: 41 s at -O2 -g, 18 s at -O1 -g1), and that build is the largest part
# of CI's time. TSan keeps -O2: its suites run longer than they build.
configure() {  # DIR COMPILER SANITIZER-FLAGS OPTIMISATION-FLAGS
  command -v "$2" >/dev/null || { echo "sanitize.sh: $2 not found (scripts/install-deps.sh --sanitizers)" >&2; exit 1; }
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$2" \
    -DCMAKE_CXX_FLAGS="$3" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$4 -DNDEBUG" -DCMAKE_EXE_LINKER_FLAGS="$3" \
    -DKMS_WITH_CUDA=OFF -DKMS_WITH_QT=OFF -DKMS_BUILD_BENCH=OFF >/dev/null
}
only() {  # NAME...: a CTest regex for exactly these suites (or their shards: tests/CMakeLists.txt)
  local IFS='|'
  echo "^($*)(_[0-9]+of[0-9]+)?\$"
}

status=0
if [ "$mode" = asan ] || [ "$mode" = all ]; then
  start=$SECONDS
  configure build-asan "$asan_cxx" "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    "-O1 -g1"
  nice -n "$build_nice" cmake --build build-asan -j "$jobs" --target kmeans-cli "${cpu_tests[@]}"
  built=$((SECONDS - start))
  # allocator_may_return_null: the loaders turn a failed allocation into "not enough memory".
  export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1:detect_stack_use_after_return=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export KMP_HOT_TEAMS_MAX_LEVEL=0  # libomp's hot-team leak (above); libgomp ignores it
  (cd build-asan && ctest --output-on-failure -j "$jobs" --timeout 1500 -R "$(only "${cpu_tests[@]}")") || status=1
  echo "asan+ubsan: build ${built} s, total $((SECONDS - start)) s"
  unset ASAN_OPTIONS UBSAN_OPTIONS KMP_HOT_TEAMS_MAX_LEVEL
fi
if [ "$mode" = tsan ] || [ "$mode" = all ]; then
  start=$SECONDS
  archer=/usr/lib/llvm-14/lib/libarcher.so
  [ -f "$archer" ] || { echo "sanitize.sh: $archer not found (libomp-14-dev)" >&2; exit 1; }
  configure build-tsan "$tsan_cxx" "-fsanitize=thread -fno-omit-frame-pointer" "-O2 -g1"
  nice -n "$build_nice" cmake --build build-tsan -j "$jobs" --target "${omp_tests[@]}"
  built=$((SECONDS - start))
  # 4 OpenMP threads whatever the machine: TSan needs two or more to see a race.
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
  # Two suites share the cores: idle threads sleep instead of spinning (test_weights took
  # 30 s beside test_solvers with libomp's spin, 8 s without).
  export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
  export OMP_TOOL_LIBRARIES=$archer ARCHER_OPTIONS=verbose=1
  # ignore_noninstrumented_modules: libomp's own (uninstrumented) internals and Qt
  # are not reported, as Archer asks; our code is fully instrumented.
  export TSAN_OPTIONS=ignore_noninstrumented_modules=1:halt_on_error=1:second_deadlock_stack=1
  # No CLI (KMS_CLI empty): the functions that would start it are left out below.
  export KMS_CLI= KMS_SOURCE_DIR=$PWD KMS_DATASETS=$PWD/../shared/datasets KMS_PYTHON=
  # clang-14's TSan dies (CHECK failed: tsan_rtl.cpp:234 in ForkAfter, from its
  # clone() interceptor) whenever Qt 6.4's QProcess starts a process, OpenMP or
  # not; so the test functions that start the CLI or Python are left out here
  # (the ASan job runs them).
  spawning="cliGenerate matches_scikit_learn cli_score_reports_json npy_written_by_numpy_matches potentialsMatchScikitLearn
            weighted_fits_match_scikit_learn cli_weights"
  spawning=" $(echo $spawning) "  # one space between names, wherever the list wraps
  # $jobs suites at a time (a suite under TSan keeps ~1.3-1.5 of CI's 2 cores busy: one
  # after another they took 110 s, two at a time 86), reported in order when all have ended.
  run_tsan_suite() {  # SUITE: its exit status; its log, function count and seconds in build-tsan/
    local suite=$1 functions=() name suite_start=$SECONDS code=0
    while read -r name; do
      name=${name%()}
      [[ "$spawning" == *" $name "* ]] || functions+=("$name")
    done < <("build-tsan/tests/$suite" -functions)
    echo "${#functions[@]}" > "build-tsan/$suite.functions"
    timeout 1500 "build-tsan/tests/$suite" "${functions[@]}" >"build-tsan/$suite.log" 2>&1 || code=$?
    echo "$((SECONDS - suite_start))" > "build-tsan/$suite.seconds"
    return "$code"
  }
  rm -f build-tsan/*.seconds build-tsan/*.functions
  source scripts/parallel.sh
  run_in_parallel "$jobs" run_tsan_suite "${omp_tests[@]}"
  for suite in "${omp_tests[@]}"; do
    code=${exit_status_of[$suite]}
    seconds=$(cat "build-tsan/$suite.seconds" 2>/dev/null || echo "?")
    echo "== $suite ($(cat "build-tsan/$suite.functions" 2>/dev/null || echo "?") functions, OMP_NUM_THREADS=${OMP_NUM_THREADS:-all})"
    if [ "$code" != 0 ]; then
      status=1
      echo "!! $suite failed under TSan (exit status $code): build-tsan/$suite.log" >&2
      grep -E -m3 "WARNING: ThreadSanitizer|FAIL!|CHECK failed" "build-tsan/$suite.log" >&2 || true
    fi
    grep -E "^Totals" "build-tsan/$suite.log" | sed "s/^/   /;s/\$/ ($seconds s)/" || true
  done
  echo "tsan (archer): build ${built} s, total $((SECONDS - start)) s"
fi
exit $status
