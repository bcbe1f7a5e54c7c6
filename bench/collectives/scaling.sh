#!/usr/bin/env bash
# How the cost of a simulation grows with GPUs: NCCL's 1 GiB all-reduce on N H100s behind one
# switch (h100-8 with num_gpus: N), one run per N; wall time and peak memory of `tessera run`
# (GNU time), the run's events, and a log-log plot of wall time against N as SVG.
# With SCALE_OUT=1: Tessera's ring all-reduce of 1 GiB on N / 8 nodes of eight H200s
# (h200-8x16 with num_gpus: N and scale_out.nodes: N / 8), the network between them.
#
#   bench/collectives/scaling.sh OUT_DIR [path/to/tessera] [N ...]      (default N: 8 16 32 64 128)
#
# Writes OUT_DIR/scaling.csv and OUT_DIR/scaling.svg. A 128-GPU run takes minutes on two cores.
set -euo pipefail
out=${1:?usage: bench/collectives/scaling.sh OUT_DIR [tessera] [N ...]}
here="$(cd "$(dirname "$0")" && pwd)"
tessera="${2:-$here/../../build/bin/tessera}"
shift $(($# >= 2 ? 2 : 1))
gpus=("$@")
[ ${#gpus[@]} -gt 0 ] || gpus=(8 16 32 64 128)
mkdir -p "$out"
echo "gpus,wall_s,max_rss_MiB,events,simulated_us" >"$out/scaling.csv"
for n in "${gpus[@]}"; do
  if [ "${SCALE_OUT:-0}" = 1 ]; then
    printf 'system: {base: h200-8x16, num_gpus: %s, scale_out: {nodes: %s}}\nworkload: {kind: collective, op: all_reduce, size: 1 GiB}\n' \
      "$n" "$((n / 8))" >"$out/all_reduce_$n.yaml"
  else
    printf 'system: {base: h100-8, num_gpus: %s}\nworkload: {kind: collective, op: all_reduce, size: 1 GiB, library: nccl}\n' \
      "$n" >"$out/all_reduce_$n.yaml"
  fi
  /usr/bin/time -f '%e %M' -o "$out/time_$n.txt" "$tessera" run "$out/all_reduce_$n.yaml" --json >"$out/run_$n.json"
  python3 - "$n" "$out" >>"$out/scaling.csv" <<'PY'
import json, sys
n, out = sys.argv[1], sys.argv[2]
wall, rss_kb = open(f"{out}/time_{n}.txt").read().split()[-2:]
run = json.load(open(f"{out}/run_{n}.json"))
print(f"{n},{float(wall):.2f},{int(rss_kb) / 1024:.1f},{run['events']},{run['makespan_ns'] / 1e3:.1f}")
PY
done
title="NCCL all-reduce of 1 GiB, H100s behind one switch"
[ "${SCALE_OUT:-0}" = 1 ] && title="Tessera ring all-reduce of 1 GiB, nodes of 8 H200s"
python3 - "$out" "$title" <<'PY'
import csv, math, sys
out, title = sys.argv[1], sys.argv[2]
rows = [(int(r["gpus"]), float(r["wall_s"])) for r in csv.DictReader(open(f"{out}/scaling.csv"))]
W, H, M = 480, 320, 60
xs = [math.log10(n) for n, _ in rows]; ys = [math.log10(max(w, 1e-3)) for _, w in rows]
x0, x1 = math.floor(min(xs)), math.ceil(max(xs)); y0, y1 = math.floor(min(ys)), math.ceil(max(ys))
x1 = max(x1, x0 + 1); y1 = max(y1, y0 + 1)
px = lambda x: M + (x - x0) / (x1 - x0) * (W - 2 * M)
py = lambda y: H - M - (y - y0) / (y1 - y0) * (H - 2 * M)
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<rect width="{W}" height="{H}" fill="white"/>']
for d in range(x0, x1 + 1):
    svg.append(f'<line x1="{px(d):.1f}" y1="{py(y0):.1f}" x2="{px(d):.1f}" y2="{py(y1):.1f}" stroke="#ddd"/>')
    svg.append(f'<text x="{px(d):.1f}" y="{H - M + 16}" text-anchor="middle">{10 ** d:g}</text>')
for d in range(y0, y1 + 1):
    svg.append(f'<line x1="{px(x0):.1f}" y1="{py(d):.1f}" x2="{px(x1):.1f}" y2="{py(d):.1f}" stroke="#ddd"/>')
    svg.append(f'<text x="{M - 6}" y="{py(d) + 4:.1f}" text-anchor="end">{10 ** d:g}</text>')
pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
svg.append(f'<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
for (n, w), x, y in zip(rows, xs, ys):
    svg.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="#1f77b4"/>')
    svg.append(f'<text x="{px(x) + 5:.1f}" y="{py(y) - 6:.1f}">{w:g} s</text>')
svg.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">GPUs (log)</text>')
svg.append(f'<text x="14" y="{H / 2}" text-anchor="middle" transform="rotate(-90 14 {H / 2})">wall time, s (log)</text>')
svg.append(f'<text x="{W / 2}" y="20" text-anchor="middle">{title}</text>')
svg.append("</svg>")
open(f"{out}/scaling.svg", "w").write("\n".join(svg) + "\n")
PY
cat "$out/scaling.csv"
