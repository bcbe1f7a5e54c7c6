#!/usr/bin/env bash
# Runs a suite of the HIP kernel suite on this machine's GPUs and records how: the machine's GPUs as its own tools
# report them (nvidia-smi or rocm-smi), the date, the driver binary and the exact command, beside one result JSON per
# run (docs/kernels.md).
#
#   scripts/run-kernel-suite.sh SUITE.yaml OUT_DIR [DRIVER]
#
# DRIVER defaults to build/bin/tessera-kernels-nvidia or build/bin/tessera-kernels-amd, whichever exists.
# Exit status: that of the driver (0 every check passed, 1 a run failed, 2 bad input).
set -uo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
suite=$1
out=$2
driver=${3:-}
if [ -z "$driver" ]; then
  for candidate in build/bin/tessera-kernels-nvidia build/bin/tessera-kernels-amd; do
    [ -x "$candidate" ] && driver=$candidate && break
  done
fi
if [ -z "$driver" ] || [ ! -x "$driver" ]; then
  echo "error: no kernel-suite driver found (build with -DTESSERA_KERNELS=nvidia or amd, or pass DRIVER)" >&2
  exit 2
fi
mkdir -p "$out"

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r) $(uname -m)"
  echo "suite: $suite"
  echo "driver: $driver"
  echo "command: $driver --suite $suite --out $out ${TK_EXTRA_FLAGS:-}"
  if command -v nvidia-smi > /dev/null; then
    echo "nvidia-smi:"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit \
      --format=csv 2>&1 | sed 's/^/  /'
    echo "nvidia-smi topo -m:"
    nvidia-smi topo -m 2>&1 | sed 's/^/  /'
  fi
  if command -v rocm-smi > /dev/null; then
    echo "rocm-smi:"
    rocm-smi --showproductname --showdriverversion --showmaxpower 2>&1 | sed 's/^/  /'
  fi
} > "$out/machine.txt"

# shellcheck disable=SC2086  # TK_EXTRA_FLAGS is a list of flags on purpose
"$driver" --suite "$suite" --out "$out" ${TK_EXTRA_FLAGS:-} 2>&1 | tee "$out/suite.log"
exit "${PIPESTATUS[0]}"
