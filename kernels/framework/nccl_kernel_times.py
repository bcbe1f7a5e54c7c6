#!/usr/bin/env python3
"""How long NCCL's collective kernels run on the GPU, apart from the host that issues them.

The kernel suite's collective cases (docs/kernels.md, "Collectives") time 20 collectives back to
back, as nccl-tests does: that mean is the host's pace or the GPU's, whichever is slower, or
something between, and the suite cannot say which. This script measures the GPU side directly:
PyTorch's profiler (CUPTI) records every NCCL kernel's start and end on the GPU.

Run one process per GPU, with the protocol forced or not through NCCL's own environment:

    NCCL_ALGO=Ring NCCL_PROTO=Simple torchrun --standalone --nproc_per_node=2 \
        kernels/framework/nccl_kernel_times.py --out simple.json

Two modes per (op, size):
- `isolated`: every call after torch.cuda.synchronize() and a barrier on a CPU (gloo) group, so
  each kernel starts on an idle GPU; the rank whose kernel started last waited for nobody, so
  per call the shorter of the two ranks' kernel durations is the kernel's own time (its launch
  on the GPU to its end, with both ranks present).
- `back_to_back`: `calls` collectives queued without synchronizing (as the suite and nccl-tests
  time them); the wall time per call between two CUDA events on each rank, and the kernels'
  durations, which then include waiting for the other rank's kernel.

Sizes follow nccl-tests (the gathered buffer of all_gather, the send buffer of reduce_scatter,
the buffer of all_reduce), fp16. Rank 0 writes every rank's samples and the machine (GPU, driver,
PyTorch, NCCL, NCCL_* environment, date, command).
"""
import argparse
import datetime
import json
import os
import statistics
import sys

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile

import gpu_info  # beside this script

SIZES = [8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20, 32 << 20, 128 << 20]
OPS = ["all_gather", "reduce_scatter", "all_reduce"]


def nvidia_smi():
    out, _ = gpu_info.nvidia_smi("index,name,driver_version")
    return out.splitlines() if out else []


def make_call(op, size_bytes, world, device):
    elements = size_bytes // 2
    if op == "all_gather":
        inp = torch.ones(elements // world, dtype=torch.float16, device=device)
        out = torch.empty(elements, dtype=torch.float16, device=device)
        return lambda: dist.all_gather_into_tensor(out, inp)
    if op == "reduce_scatter":
        inp = torch.ones(elements, dtype=torch.float16, device=device)
        out = torch.empty(elements // world, dtype=torch.float16, device=device)
        return lambda: dist.reduce_scatter_tensor(out, inp)
    buf = torch.ones(elements, dtype=torch.float16, device=device)
    return lambda: dist.all_reduce(buf)


def nccl_kernel_durations_us(prof, path):
    """Every NCCL kernel's GPU duration (us), in start order, from the profiler's Chrome trace."""
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    kernels = sorted((e["ts"], float(e["dur"]), e["name"]) for e in events
                     if e.get("cat") == "kernel" and "nccl" in e.get("name", "").lower())
    os.remove(path)
    return [d for _, d, _ in kernels], sorted({n for _, _, n in kernels})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="+", default=SIZES,
                    help="sizes in bytes as nccl-tests counts them (default: 8 KiB to 128 MiB by powers of 4)")
    args = ap.parse_args()
    sizes = args.sizes

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
    torch.cuda.set_device(device)
    cpu_group = dist.new_group(backend="gloo")
    trace_path = f"{args.out}.rank{rank}.trace.json"

    results = []
    for op in OPS:
        for size in sizes:
            call = make_call(op, size, world, device)
            for _ in range(args.warmup):
                call()
            torch.cuda.synchronize()
            # isolated
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(args.calls):
                    torch.cuda.synchronize()
                    dist.barrier(group=cpu_group)
                    call()
                torch.cuda.synchronize()
            isolated, names = nccl_kernel_durations_us(prof, trace_path)
            # back to back
            dist.barrier(group=cpu_group)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                torch.cuda.synchronize()
                dist.barrier(group=cpu_group)
                start.record()
                for _ in range(args.calls):
                    call()
                end.record()
                torch.cuda.synchronize()
            b2b, _ = nccl_kernel_durations_us(prof, trace_path)
            per_call_us = start.elapsed_time(end) * 1000.0 / args.calls
            results.append({"op": op, "size_bytes": size, "rank": rank, "kernel_names": names,
                            "isolated_kernel_us": isolated, "back_to_back_kernel_us": b2b,
                            "back_to_back_per_call_us": per_call_us})
            del call
            torch.cuda.synchronize()

    gathered = [None] * world
    dist.all_gather_object(gathered, results, group=cpu_group)
    if rank == 0:
        rows = []
        for op in OPS:
            for size in sizes:
                per_rank = [r for rs in gathered for r in rs if r["op"] == op and r["size_bytes"] == size]
                per_rank.sort(key=lambda r: r["rank"])
                n = min(len(r["isolated_kernel_us"]) for r in per_rank)
                own = [min(r["isolated_kernel_us"][i] for r in per_rank) for i in range(n)]
                rows.append({"op": op, "size_bytes": size, "calls": n,
                             "kernel_us_median": statistics.median(own) if own else None,
                             "kernel_us_min": min(own) if own else None,
                             "back_to_back_per_call_us": max(r["back_to_back_per_call_us"] for r in per_rank),
                             "per_rank": per_rank})
        out = {
            "schema": "tessera-nccl-kernel-times/1",
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "world_size": world,
            "device": torch.cuda.get_device_name(device),
            "nvidia_smi": nvidia_smi(),
            "torch": torch.__version__,
            "nccl": ".".join(str(v) for v in torch.cuda.nccl.version()),
            "environment": {k: v for k, v in sorted(os.environ.items()) if k.startswith("NCCL_") or k in (
                "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS", "CUDA_VISIBLE_DEVICES")},
            "dtype": "fp16",
            "cases": rows,
        }
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
        for r in rows:
            print(f"{r['op']:>15} {r['size_bytes']:>10} kernel {r['kernel_us_median']:8.2f} us (min {r['kernel_us_min']:8.2f})"
                  f"  back-to-back {r['back_to_back_per_call_us']:8.2f} us/call", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
