#!/usr/bin/env bash
# Every CTest test belongs to exactly one tier (unit, integration, validation: tests/CMakeLists.txt),
# so that `ctest -L unit` is the developer's loop and CI can choose tiers per stage.
#
#   scripts/check-test-tiers.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: scripts/check-test-tiers.sh BUILD_DIR}
tiers='^(unit|integration|validation)$'

untiered=$(ctest --test-dir "$build" -N -LE "$tiers" | grep -E '^ *Test +#' || true)
if [ -n "$untiered" ]; then
  echo "check-test-tiers: these tests have no tier label (use tessera_add_test(... TIER ...) or tessera_set_tier):" >&2
  echo "$untiered" >&2
  exit 1
fi
total=$(ctest --test-dir "$build" -N | sed -n 's/^Total Tests: //p')
counted=0
for tier in unit integration validation; do
  n=$(ctest --test-dir "$build" -N -L "^${tier}\$" | sed -n 's/^Total Tests: //p')
  echo "check-test-tiers: $tier: $n tests"
  counted=$((counted + n))
done
if [ "$counted" -ne "$total" ]; then
  echo "check-test-tiers: $counted tier memberships for $total tests: a test is in more than one tier" >&2
  exit 1
fi
