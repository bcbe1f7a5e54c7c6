#!/usr/bin/env python3
"""What a kernel boundary costs on the GPU: the teardown, the dispatch of workgroups, a queued launch.

The launch-latency microbenchmark of the kernel suite times empty kernels back to back: it measures
one sum per kernel (launch + dispatch + teardown) and cannot say how much of it comes after a
kernel's last workgroup has ended. This script splits it with the GPU's global timer
(%globaltimer, nanoseconds, one clock for every SM), on one GPU:

- teardown: a one-workgroup kernel records the time its work ends, then either (direct) writes a
  flag itself or (stream) ends, after which its stream writes the flag (cuStreamWriteValue32, the
  stream's next command, which runs when the stream has seen the kernel complete). A watcher kernel
  on a second stream, resident on another SM, records when each flag value appears.
  teardown = mean(stream delay) - mean(direct delay): the flag's own visibility cancels out.
- dispatch: a kernel of W workgroups, all resident at once (W up to the SMs x the resident-block
  limit, each spinning long enough to stay), records each workgroup's start; the span of the
  starts over W is the dispatcher's rate.
- queued: one-workgroup kernels queued behind a gate kernel (so the host is far ahead), each
  recording its start and end: the gap from one's end to the next's start is the GPU's own cost
  of a kernel boundary when the launch is already queued.
- cupti (with --cupti, needs PyTorch): the same one-workgroup kernels, each on an idle GPU, under
  PyTorch's profiler (CUPTI): the kernel's duration as the profiler reports it against its
  workgroup's own span on the global timer. The difference says how much of the launch and the
  teardown a profiler's kernel time contains (what NCCL's kernel times, taken the same way, hold).

    python3 kernels/framework/kernel_boundaries.py --out OUT.json [--trials 400] [--repeats 20] [--cupti]

CuPy compiles the kernels at run time (NVRTC); the stream write comes from the driver library
(libcuda.so.1) through ctypes. The JSON (schema tessera-kernel-boundaries/1) has the device,
driver, versions, the date, the command, the raw delays and the summaries.
"""
import argparse
import ctypes
import datetime
import json
import statistics
import sys
import time

import cupy as cp

import gpu_info  # beside this script

SOURCE = r"""
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One workgroup: record the start, spin spin_ns, record the end; with a flag, publish value there.
extern "C" __global__ void stamp(unsigned long long* starts, unsigned long long* ends, int slot,
                                 unsigned long long spin_ns, unsigned int* flag, unsigned int value) {
  if (threadIdx.x != 0) return;
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < spin_ns) {
  }
  const unsigned long long t1 = global_ns();
  starts[slot] = t0;
  ends[slot] = t1;
  if (flag != nullptr) {
    __threadfence();
    atomicExch(flag, value);
  }
}

// Waits for flag values 1..count in turn and records when each appears (an atomic read: served at
// the L2, the point of coherence, like the writes). Gives up after timeout_ns.
extern "C" __global__ void watch(unsigned int* flag, unsigned int count, unsigned long long* seen,
                                 unsigned long long timeout_ns) {
  if (threadIdx.x != 0) return;
  const unsigned long long begin = global_ns();
  for (unsigned int i = 0; i < count; ++i) {
    unsigned long long now = global_ns();
    while (atomicAdd(flag, 0u) < i + 1) {
      now = global_ns();
      if (now - begin > timeout_ns) return;
    }
    seen[i] = now;
  }
}

// Holds its stream for spin_ns (the host queues the work behind it meanwhile).
extern "C" __global__ void gate(unsigned long long spin_ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < spin_ns) {
  }
}

// Every workgroup records its start and its SM, then stays resident for hold_ns.
extern "C" __global__ void arrive(unsigned long long* starts, unsigned int* sms, unsigned long long hold_ns) {
  if (threadIdx.x != 0) return;
  const unsigned long long t0 = global_ns();
  unsigned int sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  starts[blockIdx.x] = t0;
  sms[blockIdx.x] = sm;
  while (global_ns() - t0 < hold_ns) {
  }
}
"""

THREADS = 32          # one warp per workgroup: the cost per workgroup, not per thread
SPIN_NS = 2000        # each stamped kernel's work: long enough that its start and end are apart
GATE_NS = 20_000_000  # 20 ms: the host queues a few hundred launches meanwhile
TIMEOUT_NS = 10_000_000_000


def nvidia_smi():
    out, why = gpu_info.nvidia_smi("name,driver_version,clocks.max.sm,memory.total")
    return out if out is not None else why


def stream_write_value():
    driver = ctypes.CDLL("libcuda.so.1")
    for name in ("cuStreamWriteValue32_v2", "cuStreamWriteValue32"):
        fn = getattr(driver, name, None)
        if fn is not None:
            fn.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
            fn.restype = ctypes.c_int

            def write(stream, address, value, fn=fn, name=name):
                rc = fn(ctypes.c_void_p(stream.ptr), ctypes.c_uint64(address), ctypes.c_uint32(value), 0)
                if rc != 0:
                    raise RuntimeError(f"{name} returned CUresult {rc}")
            return write
    raise RuntimeError("libcuda.so.1 has no cuStreamWriteValue32")


def summary(values):
    values = sorted(values)
    n = len(values)
    return {"n": n, "mean_ns": statistics.fmean(values), "median_ns": statistics.median(values),
            "p10_ns": values[n // 10], "p90_ns": values[(9 * n) // 10], "min_ns": values[0], "max_ns": values[-1]}


def timer_quantum(stamps):
    """The smallest non-zero difference between sorted stamps: the global timer's resolution, at most."""
    s = sorted(set(int(x) for x in stamps))
    diffs = [b - a for a, b in zip(s, s[1:]) if b > a]
    return min(diffs) if diffs else None


def teardown_runs(module, trials, write_value):
    """Delays from a kernel's last stamp to a watcher seeing the flag: written by the kernel or by its stream."""
    stamp, watch, gate = (module.get_function(n) for n in ("stamp", "watch", "gate"))
    work = cp.cuda.Stream(non_blocking=True)
    watcher = cp.cuda.Stream(non_blocking=True)
    out = {}
    for mode in ("direct", "stream"):
        flag = cp.zeros(1, dtype=cp.uint32)
        starts = cp.zeros(trials, dtype=cp.uint64)
        ends = cp.zeros(trials, dtype=cp.uint64)
        seen = cp.zeros(trials, dtype=cp.uint64)
        cp.cuda.Device().synchronize()
        with watcher:
            watch((1,), (THREADS,), (flag, cp.uint32(trials), seen, cp.uint64(TIMEOUT_NS)))
        time.sleep(0.01)  # the watcher is resident before the work starts
        with work:
            gate((1,), (THREADS,), (cp.uint64(GATE_NS),))
            for i in range(trials):
                if mode == "direct":
                    stamp((1,), (THREADS,), (starts, ends, cp.int32(i), cp.uint64(SPIN_NS), flag, cp.uint32(i + 1)))
                else:
                    stamp((1,), (THREADS,), (starts, ends, cp.int32(i), cp.uint64(SPIN_NS), cp.uint64(0),
                                             cp.uint32(0)))
                    write_value(work, flag.data.ptr, i + 1)
        cp.cuda.Device().synchronize()
        e, s = ends.get().tolist(), seen.get().tolist()
        if min(s) == 0:
            raise RuntimeError(f"teardown ({mode}): the watcher timed out")
        delays = [float(b - a) for a, b in zip(e, s)]
        out[mode] = {"delays_ns": delays, **summary(delays), "timer_quantum_ns": timer_quantum(e + s)}
        print(f"teardown {mode:>6}: median {out[mode]['median_ns']:7.0f} ns, mean {out[mode]['mean_ns']:7.0f} ns",
              flush=True)
    return out


def queued_runs(module, trials):
    """Gaps between one-workgroup kernels queued back to back behind a gate."""
    stamp, gate = module.get_function("stamp"), module.get_function("gate")
    work = cp.cuda.Stream(non_blocking=True)
    starts = cp.zeros(trials, dtype=cp.uint64)
    ends = cp.zeros(trials, dtype=cp.uint64)
    cp.cuda.Device().synchronize()
    with work:
        gate((1,), (THREADS,), (cp.uint64(GATE_NS),))
        for i in range(trials):
            stamp((1,), (THREADS,), (starts, ends, cp.int32(i), cp.uint64(SPIN_NS), cp.uint64(0), cp.uint32(0)))
    cp.cuda.Device().synchronize()
    s, e = starts.get().tolist(), ends.get().tolist()
    gaps = [float(s[i + 1] - e[i]) for i in range(trials - 1)]
    print(f"queued gap: median {statistics.median(gaps):7.0f} ns", flush=True)
    return {"gaps_ns": gaps, **summary(gaps), "timer_quantum_ns": timer_quantum(s + e)}


def cupti_runs(module, trials, trace_path):
    """Per one-workgroup kernel on an idle GPU: CUPTI's duration and the workgroup's own span (ns)."""
    import os
    import torch
    from torch.profiler import ProfilerActivity, profile
    stamp = module.get_function("stamp")
    starts = cp.zeros(trials, dtype=cp.uint64)
    ends = cp.zeros(trials, dtype=cp.uint64)
    cp.cuda.Device().synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(trials):
            stamp((1,), (THREADS,), (starts, ends, cp.int32(i), cp.uint64(SPIN_NS), cp.uint64(0), cp.uint32(0)))
            cp.cuda.Device().synchronize()
    prof.export_chrome_trace(trace_path)
    with open(trace_path) as f:
        events = json.load(f)
    os.remove(trace_path)
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    durations = [float(e["dur"]) * 1e3 for e in sorted((e for e in events if e.get("cat") == "kernel" and e.get("name") == "stamp"),
                                                        key=lambda e: e["ts"])]
    s, e = starts.get().tolist(), ends.get().tolist()
    spans = [float(b - a) for a, b in zip(s, e)]
    if len(durations) != trials:
        raise RuntimeError(f"cupti: the profiler recorded {len(durations)} stamp kernels of {trials} (torch {torch.__version__})")
    beyond = [d - w for d, w in zip(durations, spans)]
    print(f"cupti: kernel {statistics.median(durations):7.0f} ns, its workgroup {statistics.median(spans):7.0f} ns, "
          f"beyond {statistics.median(beyond):5.0f} ns (medians)", flush=True)
    return {"torch": torch.__version__, "durations_ns": durations, "spans_ns": spans,
            "duration": summary(durations), "span": summary(spans), "beyond_span": summary(beyond)}


def dispatch_runs(module, counts, repeats, hold_ns):
    """The span of the start times of W resident workgroups, per W."""
    arrive = module.get_function("arrive")
    cases = []
    for w in counts:
        spans, per_sm_max = [], []
        starts = cp.zeros(w, dtype=cp.uint64)
        sms = cp.zeros(w, dtype=cp.uint32)
        for r in range(repeats + 2):
            arrive((w,), (THREADS,), (starts, sms, cp.uint64(hold_ns)))
            cp.cuda.Device().synchronize()
            if r < 2:
                continue  # warm-up
            st = starts.get().tolist()
            spans.append(float(max(st) - min(st)))
            counts_per_sm = {}
            for sm in sms.get().tolist():
                counts_per_sm[sm] = counts_per_sm.get(sm, 0) + 1
            per_sm_max.append(max(counts_per_sm.values()))
        cases.append({"workgroups": w, "threads": THREADS, "hold_ns": hold_ns, "spans_ns": spans, **summary(spans),
                      "max_workgroups_on_one_sm": max(per_sm_max), "sms_used": len(counts_per_sm)})
        print(f"dispatch {w:5d} workgroups: span median {statistics.median(spans):8.0f} ns "
              f"({len(counts_per_sm)} SMs, at most {max(per_sm_max)} on one)", flush=True)
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--trials", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--cupti", action="store_true", help="also time the kernels under PyTorch's profiler (CUPTI)")
    args = ap.parse_args()

    module = cp.RawModule(code=SOURCE, options=("--std=c++17",))
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    blocks_per_sm = props.get("maxBlocksPerMultiProcessor", 32)
    counts = sorted({sms // 2, sms, 2 * sms, 4 * sms, 8 * sms, 16 * sms, blocks_per_sm * sms})
    teardown = teardown_runs(module, args.trials, stream_write_value())
    queued = queued_runs(module, args.trials)
    dispatch = dispatch_runs(module, counts, args.repeats, hold_ns=100_000)
    cupti = cupti_runs(module, 100, args.out + ".trace.json") if args.cupti else None
    result = {
        "schema": "tessera-kernel-boundaries/1",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join([sys.executable.split("/")[-1]] + sys.argv),
        "device": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
        "multiprocessors": sms,
        "max_blocks_per_multiprocessor": blocks_per_sm,
        "nvidia_smi": nvidia_smi(),
        "cupy": cp.__version__,
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "spin_ns": SPIN_NS,
        "teardown": {**teardown, "teardown_ns": teardown["stream"]["mean_ns"] - teardown["direct"]["mean_ns"]},
        "queued": queued,
        "dispatch": dispatch,
    }
    if cupti is not None:
        result["cupti"] = cupti
    print(f"teardown (stream - direct, means): {result['teardown']['teardown_ns']:.0f} ns", flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
