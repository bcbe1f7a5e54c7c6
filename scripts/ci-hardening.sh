#!/usr/bin/env bash
# CI hardening (docs/robustness.md): a short libFuzzer run of every fuzz target on its seed
# corpus, then the whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer with leak
# checking. Works on a clean clone after scripts/install-deps.sh. Build folders: build-fuzz/
# (clang) and build-asan/ (gcc); the kernel suite is left out of both (-DTESSERA_KERNELS=off).
#
#   scripts/ci-hardening.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
jobs=${TESSERA_JOBS:-2}

# The compilers come through CXX, which CMake reads at the first configure only: naming another
# spelling of the cached one later (-DCMAKE_CXX_COMPILER) would wipe the cache and rebuild all.

# ---- Fuzzing ------------------------------------------------------------------------------------
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=address,undefined -DTESSERA_KERNELS=off -DTESSERA_BUILD_TESTS=OFF
cmake --build build-fuzz -j"$jobs" --target tessera_fuzz

failed=()
for target in units config set_flag trace_text trace_binary; do
  binary="$root/build-fuzz/bin/fuzz_$target"
  seeds="$root/tests/fuzz/corpus/$target"
  # A dictionary of the input's tokens and edge numbers, where random mutation needs one.
  dict=()
  case $target in
    units) dict=(-dict="$root/tests/fuzz/dict/units.dict") ;;
    config | set_flag) dict=(-dict="$root/tests/fuzz/dict/config.dict") ;;
    trace_text) dict=(-dict="$root/tests/fuzz/dict/trace_text.dict") ;;
  esac
  # New inputs go to a scratch corpus (listed first), never into the committed seeds; crashes
  # and hangs are saved under findings/. The run starts in an empty folder, so that names in a
  # fuzzed config cannot reach the repository's files.
  scratch="$root/build-fuzz/fuzz-runs/$target"
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
  exit 1
fi

# ---- Sanitizers ---------------------------------------------------------------------------------
CXX=g++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTESSERA_SANITIZE=address,undefined -DTESSERA_KERNELS=off
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -j"$jobs" --output-on-failure
echo "ci-hardening: passed"
