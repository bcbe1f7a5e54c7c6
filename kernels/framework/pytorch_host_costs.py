#!/usr/bin/env python3
"""The host time an eager framework spends per op: PyTorch's Python, dispatcher and launch.

Measures what a bulk-synchronous baseline written in PyTorch (a GEMM, a torch.cat, a
torch.distributed collective, one after another on the current stream) costs on the host
between kernel launches, on the machine it runs on. Run one process per GPU, as training and
inference frameworks do:

    torchrun --standalone --nproc_per_node=2 kernels/framework/pytorch_host_costs.py --out host-costs.json

Method: for each op, a loop of N calls on tiny tensors (the GPU finishes each kernel faster than
the host issues the next, so the loop measures the host), timed with time.perf_counter_ns
without synchronizing inside the loop (N stays below the launch queue's depth, so the host
never waits for the GPU); the mean time per call is one sample. `gpu_bound` is set where the
GPU took longer than the host (the loop's wall time until the final synchronize exceeds the
host time by more than 10%): such a sample is not a host cost. Rank 0 writes every rank's
samples, the medians, and the machine (GPU, driver, CPU, PyTorch, NCCL, date, command).

Tessera reads the medians as system keys host.framework_op (torch.mm) and
host.framework_collective (dist.all_gather_into_tensor, dist.all_reduce): docs/validation.md,
"Host costs of an eager framework".
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

import torch
import torch.distributed as dist

import gpu_info  # beside this script


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def nvidia_smi():
    out, _ = gpu_info.nvidia_smi("index,name,driver_version")
    return out.splitlines() if out else []


def sample(fn, calls):
    """One sample: host ns per call, and whether the GPU was the bottleneck."""
    torch.cuda.synchronize()
    dist.barrier()
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter_ns()
    torch.cuda.synchronize()
    t2 = time.perf_counter_ns()
    host = (t1 - t0) / calls
    wall = (t2 - t0) / calls
    return {"host_ns_per_call": host, "wall_ns_per_call": wall, "gpu_bound": wall > 1.1 * host}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file rank 0 writes")
    parser.add_argument("--calls", type=int, default=400, help="calls per sample (below the launch queue's depth)")
    parser.add_argument("--samples", type=int, default=15)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)

    a = torch.randn(64, 64, device=dev, dtype=torch.float16)
    b = torch.randn(64, 64, device=dev, dtype=torch.float16)
    c = torch.empty(64, 64, device=dev, dtype=torch.float16)
    parts = [torch.randn(32, 64, device=dev, dtype=torch.float16) for _ in range(world)]
    cat_out = torch.empty(32 * world, 64, device=dev, dtype=torch.float16)
    shard = torch.randn(4096, device=dev, dtype=torch.float16)  # 8 KiB per rank
    gathered = torch.empty(4096 * world, device=dev, dtype=torch.float16)
    reduced = torch.randn(4096, device=dev, dtype=torch.float16)

    ops = {
        "torch.mm": lambda: torch.mm(a, b, out=c),
        "torch.matmul": lambda: torch.matmul(a, b),
        "torch.cat": lambda: torch.cat(parts, dim=0, out=cat_out),
        "dist.all_gather_into_tensor": lambda: dist.all_gather_into_tensor(gathered, shard),
        "dist.all_reduce": lambda: dist.all_reduce(reduced),
    }
    mine = {}
    for name, fn in ops.items():
        for _ in range(50):  # warm-up: NCCL's communicator, cuBLAS handles, the caching allocator
            fn()
        mine[name] = [sample(fn, args.calls) for _ in range(args.samples)]

    everyone = [None] * world
    dist.all_gather_object(everyone, {"rank": rank, "gpu": torch.cuda.get_device_name(dev), "samples": mine})
    if rank == 0:
        medians = {}
        for name in ops:
            host = [s["host_ns_per_call"] for r in everyone for s in r["samples"][name] if not s["gpu_bound"]]
            bound = sum(s["gpu_bound"] for r in everyone for s in r["samples"][name])
            medians[name] = {"host_us_per_call_median": statistics.median(host) / 1e3 if host else None,
                             "samples_used": len(host), "samples_gpu_bound": bound}
        doc = {
            "what": "host time per eager PyTorch op, one process per GPU (kernels/framework/pytorch_host_costs.py)",
            "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": " ".join(["torchrun", f"--nproc_per_node={world}"] + sys.argv),
            "machine": {"gpus": nvidia_smi(), "cpu": cpu_model(), "cpus": os.cpu_count(), "python": platform.python_version(),
                        "torch": torch.__version__, "cuda": torch.version.cuda,
                        "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                        "env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_") or k.startswith("TORCH_")}},
            "calls_per_sample": args.calls,
            "medians": medians,
            "ranks": everyone,
        }
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
        for name, m in medians.items():
            print(f"{name:32s} {m['host_us_per_call_median']} us/call ({m['samples_used']} samples, {m['samples_gpu_bound']} GPU-bound)")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
