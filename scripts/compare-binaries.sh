#!/usr/bin/env bash
# Runs the same configs through two `tessera` binaries and reports any output that differs, apart
# from the wall-clock fields (every key or column named wall_*): the check a refactoring that must
# not move a result runs (every workload kind, every example config and study, describe, the text
# and file outputs). Needs python3 for the JSON and CSV comparison.
#
#   scripts/compare-binaries.sh OLD_TESSERA NEW_TESSERA [WORK_DIR]
set -euo pipefail
old=$(realpath "${1:?usage: scripts/compare-binaries.sh OLD_TESSERA NEW_TESSERA [WORK_DIR]}")
new=$(realpath "${2:?usage: scripts/compare-binaries.sh OLD_TESSERA NEW_TESSERA [WORK_DIR]}")
cd "$(dirname "$0")/.."
repo=$(pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"

# name | tessera arguments (run from the repository root). Small sizes: every kind and variant,
# not every size, is what a refactoring can break.
cases=(
  "default|run --json"
  "default-text|run"
  "example-ag_gemm|run configs/examples/ag_gemm.yaml --json"
  "ablate|run configs/examples/ag_gemm.yaml --set workload.m=64 --ablate launch --ablate locality --ablate sync"
  "describe-default|describe"
  "describe-json|describe configs/examples/ag_gemm.yaml --json"
  "describe-system|describe configs/systems/h200-2.yaml"
  "phold|run --set workload={kind: phold, lps: 64, events_per_lp: 4, remote: 0.5, end_time: 1 us} --json"
  "trace|run --set system=mi300x-8 --set workload={kind: trace, path: tests/workloads/trace/data/two_rank_push.jsonl} --json"
)
for op in hbm_stream l2_bandwidth remote_load remote_store all_load all_store atomic_add atomic_xchg flag_pingpong \
          launch_latency p2p_copy; do
  cases+=("microbench-$op|run --set system=mi300x-8 --set workload={kind: microbench, op: $op, bytes: 4 MiB, iterations: 4} --json")
done
for v in bsp pull push; do
  cases+=("ag_gemm-$v|run --set system=mi300x-8 --set workload={kind: ag_gemm, m: 64, n: 512, k: 1024, variant: $v} --json")
done
for v in bsp producer_consumer fused_sequential wg_specialized; do
  cases+=("gemm_all_scatter-$v|run --set system=mi300x-8 --set workload={kind: gemm_all_scatter, m: 256, n: 512, k: 512, variant: $v} --json")
done
for v in bsp one_shot atomics; do
  cases+=("gemm_all_reduce-$v|run --set system=mi300x-8 --set workload={kind: gemm_all_reduce, m: 256, n: 512, k: 512, variant: $v} --json")
done
for v in bsp fused fused_coarse; do
  cases+=("flash_decode-$v|run --set system=mi300x-8 --set workload={kind: flash_decode, kv_len_per_rank: 8192, q_heads: 8, kv_heads: 1, variant: $v} --json")
done
for m in naive_block_first swizzled_block_first naive_head_first swizzled_head_first; do
  cases+=("attention-$m|run --set system=mi300x-1 --set workload={kind: attention, q_heads: 8, seq_len: 2048, mapping: $m} --json")
done
cases+=("gemm|run --set system=h200-1 --set workload={kind: gemm, m: 512, n: 512, k: 512} --json")

compare_json() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
def strip(j):
    if isinstance(j, dict): return {k: strip(v) for k, v in j.items() if not k.startswith("wall_")}
    if isinstance(j, list): return [strip(v) for v in j]
    return j
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
EOF
}

failed=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  for which in old new; do
    binary=$old
    [ "$which" = new ] && binary=$new
    # Word splitting of the arguments, but a --set value keeps its spaces: eval the quoted form.
    set +e
    eval "\"$binary\" $(printf '%s' "$args" | sed -E 's/--set ([^ ]+=\{[^}]*\}|[^ ]+)/--set "\1"/g')" \
      > "$work/$name.$which.out" 2> "$work/$name.$which.err"
    echo $? > "$work/$name.$which.rc"
    set -e
  done
  if ! cmp -s "$work/$name.old.rc" "$work/$name.new.rc"; then
    echo "DIFFERS: $name: exit $(cat "$work/$name.old.rc") -> $(cat "$work/$name.new.rc")"; failed=1; continue
  fi
  if [[ $args == *--json* ]]; then
    compare_json "$work/$name.old.out" "$work/$name.new.out" || { echo "DIFFERS: $name (JSON)"; failed=1; continue; }
  else
    # Text: the wall-clock lines (wall time, and the event rate per wall second) differ by nature.
    if ! diff -q <(grep -v -i -e 'wall' -e 'event rate' "$work/$name.old.out") <(grep -v -i -e 'wall' -e 'event rate' "$work/$name.new.out") > /dev/null; then
      echo "DIFFERS: $name (text)"; failed=1; continue
    fi
  fi
  echo "same:    $name (exit $(cat "$work/$name.new.rc"))"
done

# Every study, shrunk as tests/sim/app/determinism_test.cc shrinks it: results.csv and the points.
declare -A shrink=(
  [xgmi_ag_gemm]="--set workload.m=128 --set workload.n=512 --set workload.k=1024"
  [gemm_all_scatter_ranks]="--set workload.m=256 --set workload.n=512 --set workload.k=512"
  [flash_decode_batch_kv]="--set workload.q_heads=8 --set workload.kv_heads=1 --set workload.kv_splits=4"
  [attention_mappings]="--set workload.head_dim=16 --set workload.kv_blocks_per_op=64"
)
for study in configs/studies/*.yaml; do
  name=$(basename "$study" .yaml)
  for which in old new; do
    binary=$old
    [ "$which" = new ] && binary=$new
    rm -rf "$work/study-$name.$which"
    # shellcheck disable=SC2086
    "$binary" sweep "$study" ${shrink[$name]:-} --jobs 2 --out "$work/study-$name.$which" > /dev/null 2>&1 || true
  done
  if python3 - "$work/study-$name.old" "$work/study-$name.new" <<'EOF'
import csv, json, os, sys
def strip(j):
    if isinstance(j, dict): return {k: strip(v) for k, v in j.items() if not k.startswith("wall_")}
    if isinstance(j, list): return [strip(v) for v in j]
    return j
def table(d):
    rows = list(csv.reader(open(os.path.join(d, "results.csv"))))
    keep = [i for i, h in enumerate(rows[0]) if not h.startswith("wall_")]
    return [[r[i] for i in keep] for r in rows]
def points(d):
    p = os.path.join(d, "points")
    return {f: strip(json.load(open(os.path.join(p, f)))) for f in sorted(os.listdir(p))}
a, b = sys.argv[1:3]
sys.exit(0 if table(a) == table(b) and points(a) == points(b) else 1)
EOF
  then
    echo "same:    study $name"
  else
    echo "DIFFERS: study $name"; failed=1
  fi
done
echo "outputs in $work"
exit $failed
