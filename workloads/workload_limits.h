#pragma once
// The sizes beyond which a workload is refused before anything is built or allocated: a config
// or trace asking for more is a mistake (a unit off by 10^6, a loop count in bytes), and would
// otherwise run for days or exhaust memory. Every limit is checked up front, from the
// parameters or the trace alone, and its message names the size, the limit and what to change
// (docs/robustness.md "Limits"). The replay (workloads/replay/replay_limits.h) and the
// microbenchmarks (workloads/microbench/microbench_limits.h) apply them; both also refuse
// buffers beyond the HBM of one GPU.
#include <cstdint>

namespace tessera::workloads {

// Operations the workgroups of a run issue in all (loads, stores, computes, atomics, waits,
// barriers; for microbenchmarks, every memory access and atomic). At a few million operations
// a second, 10^11 is more than a day of wall time; the largest target workload (attention at
// 128 heads x 131072) issues well under 10^9.
inline constexpr std::uint64_t kMaxOperations = 100'000'000'000;

// Bytes that loads, stores and atomic ranges move in all: every 4 KiB of them is a cache
// lookup, so 1 PiB is ~2.7 x 10^11 lookups, days of wall time (the largest target moves 8 TiB).
inline constexpr std::uint64_t kMaxBytesMoved = std::uint64_t{1} << 50;

// Workgroups of one kernel: the compute model counts them in 32 bits.
inline constexpr std::uint64_t kMaxWorkgroupsPerKernel = 0xFFFF'FFFFULL;

// Workgroups of all kernels together: each costs a dispatch and an end event at least.
inline constexpr std::uint64_t kMaxWorkgroups = std::uint64_t{1} << 32;

}  // namespace tessera::workloads
