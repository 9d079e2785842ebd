#!/usr/bin/env bash
# From a fresh machine: install what is missing, build, run every test.
# GPU tests skip (with the reason) where there is no CUDA device.
# Besides the CTest suites this runs the sanitizer builds (ASan+UBSan on every CPU
# suite, TSan on the OpenMP ones: scripts/sanitize.sh) and the libFuzzer targets
# (scripts/fuzz.sh, $KMS_FUZZ_SECONDS each, default 12 here; scripts/fuzz.sh run alone
# defaults to 60). KMS_TEST_QUICK=1 skips those two.
#
# After the install, three lanes run side by side: the Release build and its CTest; the
# ASan+UBSan build and its CTest ("[asan] " before its lines); the TSan build and its
# suites, then the fuzzers' build ("[tsan] "). The sanitizer and fuzz builds run niced
# (KMS_BUILD_NICE: TSan's and the fuzzers' at 10, the longer lane; ASan's at 15), so they
# take the cores the other lanes leave idle (a CTest waiting on processes and timers, a
# build's last long file, TSan's suites) rather than slowing the Release build; every test
# runs at normal priority. The fuzzers run last, alone, so each target still gets its
# seconds of a whole core. One phase after another, a core sat idle for a good part of
# CI's run. KMS_TEST_SERIAL=1 runs the phases one after another, as before.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${KMS_TEST_QUICK:-}
build_dir=${KMS_BUILD_DIR:-build}
fuzz_seconds=${KMS_FUZZ_SECONDS:-12}
ticks=$(getconf CLK_TCK)

# Each phase's wall time, the CPU time (user + system) of everything it ran, and the
# run's wall time so far: CI must stay under 30 minutes on 2 cores, and these lines
# show where it goes.
child_cpu() {  # sets child_ticks: CPU ticks of this (sub)shell's finished children
  local stat
  read -ra stat < "/proc/$BASHPID/stat"
  child_ticks=$((stat[15] + stat[16]))
}
timed() {  # NAME COMMAND...
  local name=$1 phase_start=$SECONDS cpu_start status=0
  shift
  child_cpu
  cpu_start=$child_ticks
  "$@" || status=$?
  child_cpu
  echo "test.sh: $name took $((SECONDS - phase_start)) s, $(((child_ticks - cpu_start) / ticks)) CPU-s" \
       "(run so far $SECONDS s)$([ "$status" = 0 ] || echo ", FAILED with exit status $status")"
  return "$status"
}
release_ctest() {
  (cd "$build_dir" && timed ctest ctest --output-on-failure -j "$(nproc)" --timeout 900)
}

if [ -n "$quick" ]; then timed install ./scripts/install-deps.sh; else timed install ./scripts/install-deps.sh --fuzz --sanitizers; fi
if [ -n "$quick" ]; then
  timed build ./scripts/build.sh
  release_ctest
  exit
fi
if [ -n "${KMS_TEST_SERIAL:-}" ]; then
  timed build ./scripts/build.sh
  timed sanitizers ./scripts/sanitize.sh all
  timed fuzz ./scripts/fuzz.sh "$fuzz_seconds"
  release_ctest
  exit
fi

# A lane stops at its first failing phase (explicitly: set -e does not hold inside one).
release_lane() {
  timed build ./scripts/build.sh || return
  release_ctest
}
asan_lane() {
  timed asan ./scripts/sanitize.sh asan
}
tsan_lane() {
  timed tsan ./scripts/sanitize.sh tsan || return
  KMS_FUZZ_BUILD_ONLY=1 timed fuzz-build ./scripts/fuzz.sh
}
in_background() {  # PREFIX NICENESS FUNCTION: FUNCTION's output with PREFIX before each line,
                   # its builds at NICENESS; $! is its job
  (export KMS_BUILD_NICE=$2; set -o pipefail; "$3" 2>&1 | sed -u "s/^/[$1] /") &
}
# The TSan lane and the fuzzers' build are the longer lane since ASan builds with clang (2-core
# VM, nothing else running: 431 + 134 CPU-s against ASan's 504), so its builds go first when
# the two compete.
kill_tree() {  # PID: the process and all its descendants
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
# Background jobs ignore SIGINT: on an interrupt, end the sanitizer lanes too.
trap 'for job in ${asan_job:-} ${tsan_job:-}; do kill_tree "$job"; done; exit 130' INT TERM
in_background asan 15 asan_lane
asan_job=$!
in_background tsan 10 tsan_lane
tsan_job=$!
release_status=0 asan_status=0 tsan_status=0 fuzz_status=0
release_lane || release_status=$?
wait "$asan_job" || asan_status=$?
wait "$tsan_job" || tsan_status=$?
if [ "$tsan_status" = 0 ]; then  # the fuzzers were built
  timed fuzz ./scripts/fuzz.sh "$fuzz_seconds" || fuzz_status=$?
fi
child_cpu
echo "test.sh: all took $SECONDS s, $((child_ticks / ticks)) CPU-s; exit status: release lane $release_status," \
     "asan $asan_status, tsan + fuzz build $tsan_status, fuzz $fuzz_status"
[ "$release_status$asan_status$tsan_status$fuzz_status" = 0000 ]
