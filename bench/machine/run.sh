#!/usr/bin/env bash
# Times the machine-level benchmarks: best wall time of 3 runs each.
# Usage: bench/machine/run.sh [path/to/tessera]   (default: build/bin/tessera)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tessera="${1:-$here/../../build/bin/tessera}"
for config in "$here"/*.yaml; do
  best=""
  for _ in 1 2 3; do
    line="$("$tessera" run "$config" --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["wall_s"], d["events"], d["makespan_ns"], d.get("bandwidth_GBps", ""), d.get("counted_bytes_per_gpu", ""))')"
    wall="${line%% *}"
    if [[ -z "$best" ]] || python3 -c "import sys; sys.exit(0 if $wall < ${best%% *} else 1)"; then best="$line"; fi
  done
  read -r wall events makespan bw bytes <<<"$best"
  printf '%s: wall %.3f s, %s events, simulated %.3f us, %.2f GB/s per GPU, %s B per GPU\n' \
    "$(basename "$config" .yaml)" "$wall" "$events" "$(python3 -c "print($makespan/1e3)")" "$bw" "$bytes"
done
