#!/usr/bin/env bash
# Prints the markdown table of docs/taxes.md "The dataflow oracle": per pattern, the BSP run's
# makespan, the dataflow oracle's (`tessera run --ablate sync`) and every fine-grained variant's,
# on one system at the patterns' default sizes. A variant at ×1.00 reaches the bound.
# usage: scripts/dataflow-oracle-table.sh [TESSERA] [SYSTEM]   (defaults: build/bin/tessera, mi300x-8)
set -euo pipefail
tessera=${1:-build/bin/tessera}
system=${2:-mi300x-8}
declare -A variants=(
  [ag_gemm]="pull push"
  [gemm_all_scatter]="producer_consumer fused_sequential wg_specialized"
  [gemm_all_reduce]="one_shot atomics"
  [flash_decode]="fused_coarse fused"
)
makespan_us() {  # a run's (or its sync ablation's) makespan in us, from --json
  python3 -c 'import json,sys; j=json.load(sys.stdin); a=j.get("ablations",{}).get("sync"); print("%.1f" % ((a["makespan_ns"] if a and sys.argv[1]=="oracle" else j["makespan_ns"])/1e3))' "$1"
}
echo "| pattern ($system) | BSP (us) | oracle (us) | measured BSP tax | fine-grained variants (us; × the oracle's makespan) |"
echo "|---|---|---|---|---|"
for kind in ag_gemm gemm_all_scatter gemm_all_reduce flash_decode; do
  json=$("$tessera" run --set system="$system" --set workload="{kind: $kind, variant: bsp}" --ablate sync --json)
  bsp=$(makespan_us run <<<"$json")
  oracle=$(makespan_us oracle <<<"$json")
  cells=()
  for v in ${variants[$kind]}; do
    t=$("$tessera" run --set system="$system" --set workload="{kind: $kind, variant: $v}" --json | makespan_us run)
    cells+=("$v $t (×$(python3 -c "print('%.2f' % ($t/$oracle))"))")
  done
  tax=$(python3 -c "b,o=$bsp,$oracle; print('%.1f us (%.1f%%)' % (b-o, 100*(b-o)/b))")
  echo "| $kind | $bsp | $oracle | $tax | $(IFS=';'; echo "${cells[*]}" | sed 's/;/; /g') |"
done
