#!/bin/sh
# results.csv is byte-identical (apart from its last column, wall_s) whether a study runs with
# --jobs 1, --jobs 2, or spread over two MPI ranks by mpirun.
# Usage: sweep_mpi_test.sh TESSERA MPIEXEC STUDY SCRATCH_DIR
set -eu
tessera=$1 mpiexec=$2 study=$3 dir=$4
rm -rf "$dir"
mkdir -p "$dir"
# Open MPI refuses root unless told, and a CI machine may have fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# In the sanitizer build (docs/robustness.md), what Open MPI keeps until exit is not Tessera's leak:
# suppress it, with full stacks for the MPI run, as its libraries have no frame pointers to unwind
# by. Other builds ignore these variables.
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/../../sanitizers" && pwd)/lsan_suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

"$tessera" sweep "$study" --jobs 1 --out "$dir/j1" >/dev/null
"$tessera" sweep "$study" --jobs 2 --out "$dir/j2" >/dev/null
ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  "$mpiexec" -np 2 --oversubscribe "$tessera" sweep "$study" --jobs 1 --out "$dir/mpi" >"$dir/mpi.out" 2>"$dir/mpi.err"

strip_wall_s() { sed 's/,[^,]*$//' "$1"; }
strip_wall_s "$dir/j1/results.csv" >"$dir/j1.stripped"
for run in j2 mpi; do
  strip_wall_s "$dir/$run/results.csv" >"$dir/$run.stripped"
  if ! diff "$dir/j1.stripped" "$dir/$run.stripped"; then
    echo "FAIL: results.csv of $run differs from that of --jobs 1 (beyond wall_s)"
    exit 1
  fi
done
grep -q "on 2 ranks" "$dir/mpi.err" || { echo "FAIL: the mpirun sweep did not run on 2 ranks:"; cat "$dir/mpi.err"; exit 1; }
points=$(ls "$dir/mpi/points" | wc -l)
[ "$points" -eq "$(($(wc -l <"$dir/j1/results.csv") - 1))" ] || { echo "FAIL: $points point files"; exit 1; }
[ -s "$dir/mpi/report.html" ] || { echo "FAIL: no report.html"; exit 1; }
echo "ok: --jobs 1, --jobs 2 and mpirun -np 2 give the same results.csv ($points points)"
