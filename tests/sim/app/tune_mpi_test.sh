#!/bin/sh
# tessera tune gives the same ranking.csv (apart from its last column, wall_s), best.yaml and tune.json under
# mpirun -np 2 as in one process: every rank runs its share of each round and every rank gets every result.
# Usage: tune_mpi_test.sh TESSERA MPIEXEC CONFIG SCRATCH_DIR
set -eu
tessera=$1 mpiexec=$2 config=$3 dir=$4
rm -rf "$dir"
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")/../../sanitizers" && pwd)/lsan_suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# Halving: a screening round on the proxy, then the survivors in full (two rounds of exchanges).
cat >"$dir/space.yaml" <<'SPACE'
workload.k: [2048, 1024, 512]
workload.m: [128, 64]
workload.variant: [pull, push]
proxy:
  workload.n: 128
SPACE
"$tessera" tune "$config" --space "$dir/space.yaml" --budget 4 --jobs 1 --quiet --out "$dir/one" >/dev/null
ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  "$mpiexec" -np 2 --oversubscribe "$tessera" tune "$config" --space "$dir/space.yaml" --budget 4 --jobs 1 --quiet \
  --out "$dir/mpi" >"$dir/mpi.out" 2>"$dir/mpi.err"

strip_wall_s() { sed 's/,[^,]*$//' "$1"; }
strip_wall_s "$dir/one/ranking.csv" >"$dir/one.stripped"
strip_wall_s "$dir/mpi/ranking.csv" >"$dir/mpi.stripped"
for pair in "one.stripped mpi.stripped" "one/best.yaml mpi/best.yaml" "one/tune.json mpi/tune.json"; do
  set -- $pair
  if ! diff "$dir/$1" "$dir/$2"; then
    echo "FAIL: $2 differs from $1 (one process)"
    exit 1
  fi
done
grep -q '"search": "halving"' "$dir/one/tune.json" || { echo "FAIL: the search was not halving"; exit 1; }
echo "tune under mpirun -np 2 matches one process"
