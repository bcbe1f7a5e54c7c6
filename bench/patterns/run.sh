#!/usr/bin/env bash
# Times the tile-level workloads at the sizes of the speed targets of docs/performance.md (best of 3).
# Usage: bench/patterns/run.sh [path/to/tessera]
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../run_configs.sh" "$here" "${1:-$here/../../build/bin/tessera}" 3
