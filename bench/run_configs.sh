#!/usr/bin/env bash
# Times every run config of a bench folder: best wall time of N runs (default 3) each, with
# the events, the simulated makespan and the peak resident memory of the process.
# Usage: bench/run_configs.sh DIR [path/to/tessera] [runs]   (default: build/bin/tessera, 3)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$1"
tessera="${2:-$here/../build/bin/tessera}"
runs="${3:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for config in "$dir"/*.yaml; do
  best=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%M' -o "$tmp/rss" "$tessera" run "$config" --json >"$tmp/out.json"
    line="$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["wall_s"], d["events"], d["makespan_ns"], open(sys.argv[2]).read().split()[-1], d.get("bandwidth_GBps", ""))' "$tmp/out.json" "$tmp/rss")"
    wall="${line%% *}"
    if [[ -z "$best" ]] || python3 -c "import sys; sys.exit(0 if $wall < ${best%% *} else 1)"; then best="$line"; fi
  done
  read -r wall events makespan rss_kb bw <<<"$best"
  printf '%s: wall %.3f s, %s events, simulated %.3f us, peak RSS %.0f MiB%s\n' \
    "$(basename "$config" .yaml)" "$wall" "$events" "$(python3 -c "print($makespan/1e3)")" \
    "$(python3 -c "print($rss_kb/1024)")" "${bw:+, $bw GB/s per GPU}"
done
