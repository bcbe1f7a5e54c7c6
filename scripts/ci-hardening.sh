#!/usr/bin/env bash
# CI hardening (docs/robustness.md): one clang build with AddressSanitizer + UndefinedBehaviorSanitizer
# and libFuzzer's coverage instrumentation (build-san/, the kernel suite left out) serves both the
# fuzz targets and the unit and integration test tiers under the sanitizers with leak checking. The
# validation tier runs whole studies whose code paths the integration tier already covers; it runs
# in the Release build only (10x slower under the sanitizers). Works on a clean clone after
# scripts/install-deps.sh.
#
#   scripts/ci-hardening.sh build            configure and build build-san/ (tests and fuzz targets)
#   scripts/ci-hardening.sh fuzz [SECONDS]   each fuzz target for SECONDS (default 60) on its seeds
#   scripts/ci-hardening.sh test             the unit and integration tiers under the sanitizers
#   scripts/ci-hardening.sh [SECONDS]        all three, in that order
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${TESSERA_JOBS:-2}
build=build-san

build_sanitized() {
  # The compiler comes through CXX, which CMake reads at the first configure only: naming another
  # spelling of the cached one later (-DCMAKE_CXX_COMPILER) would wipe the cache and rebuild all.
  # -O1 with line tables only: ASan's reports still name file and line, and it compiles faster
  # than -O2 -g. The code whose run time is negligible (cmake/CompileTime.cmake) gets -O0.
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DTESSERA_COLD_CODE_FLAGS=-O0 \
    -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=address,undefined -DTESSERA_KERNELS=off
  cmake --build "$build" -j"$jobs" --target all tessera_fuzz
}

fuzz_all() {
  local seconds=${1:-60} failed=() target binary seeds scratch dict
  for target in units config set_flag trace_text trace_binary trace_expr measured_json; do
    binary="$root/$build/bin/fuzz_$target"
    seeds="$root/tests/fuzz/corpus/$target"
    # A dictionary of the input's tokens and edge numbers, where random mutation needs one.
    dict=()
    case $target in
      units) dict=(-dict="$root/tests/fuzz/dict/units.dict") ;;
      config | set_flag) dict=(-dict="$root/tests/fuzz/dict/config.dict") ;;
      trace_text | trace_expr) dict=(-dict="$root/tests/fuzz/dict/trace_text.dict") ;;
    esac
    # New inputs go to a scratch corpus (listed first), never into the committed seeds; crashes
    # and hangs are saved under findings/. The run starts in an empty folder, so that names in a
    # fuzzed config cannot reach the repository's files.
    scratch="$root/$build/fuzz-runs/$target"
    rm -rf "$scratch"
    mkdir -p "$scratch/corpus" "$scratch/findings" "$scratch/cwd"
    echo "ci-hardening: fuzz_$target for ${seconds} s"
    # -timeout: one input running 10 s is a hang; -rss_limit_mb: one using 2 GiB is a finding.
    if ! (cd "$scratch/cwd" && "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
            "${dict[@]}" -artifact_prefix="$scratch/findings/" -print_final_stats=1 "$scratch/corpus" "$seeds" \
            > "$scratch/log.txt" 2>&1); then
      tail -n 60 "$scratch/log.txt"
      echo "ci-hardening: fuzz_$target FOUND A PROBLEM: input saved in $scratch/findings/" >&2
      failed+=("fuzz_$target")
    else
      grep -E "^(stat::number_of_executed_units|Done )" "$scratch/log.txt" || true
    fi
  done
  if [ ${#failed[@]} -ne 0 ]; then
    echo "ci-hardening: failed: ${failed[*]}" >&2
    return 1
  fi
}

test_sanitized() {
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$build" -j"$jobs" -L '^(unit|integration)$' --output-on-failure
}

case ${1:-all} in
  build) build_sanitized ;;
  fuzz) fuzz_all "${2:-60}" ;;
  test) test_sanitized ;;
  all | [0-9]*)
    seconds=${1:-60}
    [ "$seconds" = all ] && seconds=60
    build_sanitized
    fuzz_all "$seconds"
    test_sanitized
    ;;
  *)
    echo "usage: scripts/ci-hardening.sh [build | fuzz [SECONDS] | test | SECONDS]" >&2
    exit 2
    ;;
esac
echo "ci-hardening: ${1:-all}: passed"
