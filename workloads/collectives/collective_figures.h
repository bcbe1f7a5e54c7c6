#pragma once
// The figures nccl-tests reports for a collective, from a run's makespan, with its definitions
// (doc/PERFORMANCE.md of nccl-tests, https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):
//
//   time   = makespan / iterations: the mean time of one of `iterations` launches back to back.
//            nccl-tests times its `-n` launches after warm-up ones; here nothing runs before the
//            first, so the first iteration's launch latency (and cold caches) is in the mean: at
//            iterations = 1 the time is one launch plus one collective.
//   algbw  = size / time, in decimal GB/s (10^9 bytes per second), `size` as collective_sizes.h
//            defines it per op.
//   busbw  = algbw x the op's bus factor, so that busbw is comparable across ops and rank counts
//            and with the hardware's peak bandwidth:
//              all_reduce                  2 (n - 1) / n   (a reduce-scatter then an all-gather:
//                                                           each rank sends and receives 2 (n-1)/n x size)
//              all_gather, reduce_scatter,
//              all_to_all                  (n - 1) / n     (each rank sends and receives (n-1)/n x size)
//              broadcast, reduce           1               (the pipelined ring moves size over each link)
//            n the ranks. One rank: factor 0 (nothing crosses a link).
#include <cstdint>

#include "sim/core/tick.h"
#include "workloads/collectives/collective_params.h"
#include "workloads/collectives/collective_plan.h"
#include "workloads/workload_result.h"

namespace tessera::workloads::collectives {

double bus_bandwidth_factor(CollectiveOp op, std::uint32_t ranks);

// algbw in decimal GB/s of `size_bytes` in `time_us`; 0 when the time is 0.
double algorithm_bandwidth_GBps(std::uint64_t size_bytes, double time_us);

// With what ran (the plan's algorithm, channels and, for nccl and rccl, protocol and the library's own
// prediction).
CollectiveFigures figures_of(const CollectiveParams& params, const CollectivePlan& plan, std::uint32_t ranks,
                             sim::Tick makespan_ps);

}  // namespace tessera::workloads::collectives
