#!/usr/bin/env python3
"""How much one workgroup keeps in flight when it reads two sources at once.

A reduction step of a collective library (NCCL's reduceCopy) has each thread load a few 16-byte
packs from one source, then as many from a second, add them and store the sum. Whether those two
sources are in flight together (a workgroup's outstanding loads doubled) or share what one
workgroup can keep in flight decides how fast a reduce-scatter runs where its input comes from
HBM. This script times that loop on one GPU: W blocks of 512 threads, each over its contiguous
share of the buffers, with one source (a copy) or two (a sum), from buffers far beyond the L2
(HBM) and within it (L2, after a warm-up pass), unroll 4 (NCCL's COLL_UNROLL for Simple).

    python3 kernels/framework/workgroup_sources.py --out OUT.json [--blocks 1 8 24 132] [--repeats 20]

CuPy compiles the kernel at run time (NVRTC). The JSON (schema tessera-workgroup-sources/1) has the
device, driver, CuPy and CUDA versions, the date, the command and per case the median kernel time
and the bytes read per second per block.
"""
import argparse
import datetime
import json
import statistics
import sys

import cupy as cp

import gpu_info  # beside this script

SOURCE = r"""
template <int SOURCES, int UNROLL>
__device__ void reduce_copy(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ out,
                            size_t per_block) {
  const size_t begin = blockIdx.x * per_block;
  const size_t end = begin + per_block;
  for (size_t base = begin + threadIdx.x; base < end; base += (size_t)blockDim.x * UNROLL) {
    float4 acc[UNROLL];
    #pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const size_t i = base + (size_t)u * blockDim.x;
      if (i < end) acc[u] = __ldcg(a + i);
    }
    if (SOURCES == 2) {
      float4 other[UNROLL];
      #pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const size_t i = base + (size_t)u * blockDim.x;
        if (i < end) other[u] = __ldcg(b + i);
      }
      #pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        acc[u].x += other[u].x; acc[u].y += other[u].y; acc[u].z += other[u].z; acc[u].w += other[u].w;
      }
    }
    #pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const size_t i = base + (size_t)u * blockDim.x;
      if (i < end) __stcg(out + i, acc[u]);
    }
  }
}
extern "C" __global__ void copy1(const float4* a, const float4* b, float4* out, size_t per_block) {
  reduce_copy<1, 4>(a, b, out, per_block);
}
extern "C" __global__ void sum2(const float4* a, const float4* b, float4* out, size_t per_block) {
  reduce_copy<2, 4>(a, b, out, per_block);
}
"""

THREADS = 512


def nvidia_smi():
    out, why = gpu_info.nvidia_smi("name,driver_version,clocks.max.sm,memory.total")
    return out if out is not None else why


def time_kernel(kernel, blocks, args, repeats):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        kernel((blocks,), (THREADS,), args)
    samples = []
    for _ in range(repeats):
        start.record()
        kernel((blocks,), (THREADS,), args)
        stop.record()
        stop.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)  # us
    return statistics.median(samples), min(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--blocks", type=int, nargs="+", default=[1, 8, 24, 132])
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()

    module = cp.RawModule(code=SOURCE, options=("--std=c++17",), name_expressions=None)
    kernels = {1: module.get_function("copy1"), 2: module.get_function("sum2")}
    props = cp.cuda.runtime.getDeviceProperties(0)
    cases = []
    # Far beyond the L2 (HBM: 64 MiB per block, 1 GiB per buffer at most) or within it (L2: 1 MiB per block,
    # 12 MiB per buffer at most, so both sources and the output fit; warm after the warm-up passes).
    for where, per_block_bytes, cap in (("hbm", 64 << 20, 1 << 30), ("l2", 1 << 20, 12 << 20)):
        for blocks in args.blocks:
            total = min(per_block_bytes * blocks, cap)
            per_block = total // blocks // 16
            a = cp.ones(per_block * blocks * 4, dtype=cp.float32)
            b = cp.ones(per_block * blocks * 4, dtype=cp.float32)
            out = cp.empty_like(a)
            for sources, kernel in kernels.items():
                median_us, min_us = time_kernel(kernel, blocks, (a, b, out, cp.uint64(per_block)), args.repeats)
                read = sources * per_block * 16
                cases.append({"where": where, "blocks": blocks, "sources": sources, "threads": THREADS, "unroll": 4,
                              "bytes_per_source_per_block": per_block * 16, "kernel_us_median": median_us,
                              "kernel_us_min": min_us,
                              "read_GBps_per_block": read / (median_us * 1e3),
                              "moved_GBps_per_block": (read + per_block * 16) / (median_us * 1e3)})
                print(f"{where:>3} blocks {blocks:4d} sources {sources}: {median_us:10.1f} us, "
                      f"{read / (median_us * 1e3):7.1f} GB/s read per block", flush=True)
            del a, b, out
            cp.get_default_memory_pool().free_all_blocks()
    result = {
        "schema": "tessera-workgroup-sources/1",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join([sys.executable.split("/")[-1]] + sys.argv),
        "device": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
        "multiprocessors": props["multiProcessorCount"],
        "l2_bytes": props["l2CacheSize"],
        "nvidia_smi": nvidia_smi(),
        "cupy": cp.__version__,
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cases": cases,
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
