#!/usr/bin/env bash
# Builds crmap with AddressSanitizer + UndefinedBehaviorSanitizer (CMake option CRMAP_ASAN_UBSAN, build type
# RelWithDebInfo at -O1 -g1: ASan's recommended optimisation and line tables for its stack traces, which compile
# ~2.5x faster than -O2 -g) into its own build directory, build-asan/, and runs the suite there through ctest, each
# test executable as 3 shards (CRMAP_TEST_SHARDS: a LibTorch process takes ~2 s to start under ASan). Any ASan,
# LeakSanitizer or UBSan report in any process (tests, the crmap binaries they run, peer children) fails the run:
# the runtimes halt on the first error and write their reports to build-asan/sanitizer-reports/, which this
# script prints and fails on even when a test swallowed the process's exit status. Third-party libraries are not
# instrumented; what they are allowed to do is named, with the reason, in tests/sanitizers/*.supp.
# Skipped here, all run by scripts/test.sh: the AVX2 twin suite (ctest label isa_avx2: the same crmap code as the
# host half with oneDNN and LibTorch capped at AVX2; it would double the run time), hook_tsan (ThreadSanitizer,
# which cannot combine with ASan; its target is built without ASan) and the libFuzzer targets (clang-built with
# ASan + UBSan of their own; CRMAP_CLANGXX empty leaves them out of this build) and the experiment scripts' Python
# tests (ctest label experiment_scripts: no instrumented code runs in them).
# usage: scripts/test_sanitized.sh [CTEST_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=$root/build-asan
reports=$build/sanitizer-reports
suppressions=$root/tests/sanitizers

bash scripts/install_deps.sh
mkdir -p "$build"
rm -rf "$reports"
mkdir -p "$reports"
# Set for the build too: gtest_discover_tests runs each instrumented test binary to list its tests.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1:\
detect_stack_use_after_return=1:strict_string_checks=1:print_suppressions=0:\
log_path=$reports/asan:log_exe_name=1"
export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$suppressions/ubsan.supp:\
log_path=$reports/ubsan:log_exe_name=1"

status=0
start=$SECONDS
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCRMAP_ASAN_UBSAN=ON -DCRMAP_CLANGXX= \
  -DCRMAP_TEST_SHARDS="${CRMAP_TEST_SHARDS:-3}" >/dev/null
cmake --build "$build" -j"$(nproc)" || status=$?
built=$SECONDS
if [ "$status" -eq 0 ]; then
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -LE 'isa_avx2|experiment_scripts' -E '^hook_tsan$' "$@" || status=$?
fi
echo "test_sanitized: build $((built - start)) s, tests $((SECONDS - built)) s" >&2

shopt -s nullglob
found=("$reports"/*)
if [ ${#found[@]} -gt 0 ]; then
  for report in "${found[@]}"; do
    echo "==== sanitizer report: $report" >&2
    cat "$report" >&2
  done
  echo "test_sanitized: ${#found[@]} sanitizer report(s), see above and $reports/" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
