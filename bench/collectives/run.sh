#!/usr/bin/env bash
# Times the collective benchmarks: each run config (bench/run_configs.sh) and the 16 sizes x 3 ops
# sweep (wall time of `tessera sweep`, every core). Usage: bench/collectives/run.sh [path/to/tessera]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tessera="${1:-$here/../../build/bin/tessera}"
for config in "$here"/*.yaml; do
  case "$(basename "$config")" in sweep_*) continue ;; esac
  tmp="$(mktemp -d)"; cp "$config" "$tmp/"
  "$here/../run_configs.sh" "$tmp" "$tessera" 3
  rm -rf "$tmp"
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
"$tessera" sweep "$here/sweep_16_sizes_3_ops.yaml" --out "$out/sweep" --quiet >/dev/null
end=$(date +%s.%N)
printf 'sweep_16_sizes_3_ops: wall %.2f s for %s points (%s jobs)\n' "$(python3 -c "print($end - $start)")" \
  "$(($(wc -l <"$out/sweep/results.csv") - 1))" "$(nproc)"
