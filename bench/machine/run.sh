#!/usr/bin/env bash
# Times the machine-level benchmarks (best of 3). Usage: bench/machine/run.sh [path/to/tessera]
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../run_configs.sh" "$here" "${1:-$here/../../build/bin/tessera}" 3
