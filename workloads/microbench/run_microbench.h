#pragma once
// Runs one microbenchmark on a machine built from the system spec and reports what it
// measured, the way the kernel suite reports it: the timed span of the timed kernel(s) and the
// bandwidth (decimal GB/s per GPU) or latency derived from it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/machine/memory_system.h"
#include "models/machine/resource_usage.h"
#include "models/system/system_spec.h"
#include "sim/core/run_result.h"
#include "sim/core/tick.h"
#include "workloads/microbench/microbench_params.h"
#include "workloads/workload_result.h"

namespace tessera::workloads::microbench {

struct MicrobenchResult {
  Op op = Op::kHbmStream;
  std::uint32_t workgroups = 0;     // per GPU, after the 0 = auto rule
  sim::Tick makespan_ps = 0;        // the simulation's end: everything drained
  sim::Tick timed_ps = 0;           // the span the bandwidth or latency is computed from
  std::uint64_t counted_bytes = 0;  // per GPU, as the op counts them (0 for latency ops)
  std::optional<double> bandwidth_GBps;  // counted_bytes / timed, decimal GB/s
  std::optional<double> latency_ns;      // per operation (one-way for flag_pingpong)
  std::map<std::string, std::uint64_t> link_class_bytes;  // bytes carried, summed per resource class
  std::map<std::string, models::machine::ResourceClassUsage> resource_usage;  // by resource class
  models::machine::MemorySystem::Totals memory;
  std::uint64_t events = 0;
  double wall_s = 0.0;
  bool complete = true;  // false when a limit stopped the run
  sim::StopReason stop_reason = sim::StopReason::kDrained;
  sim::stats::StatSnapshot statistics;  // every registered statistic at the end
};

// Throws std::invalid_argument when the parameters do not fit the system (see
// check_against_system; the config reader reports those with file and line first).
// `limits` (--max-events, --max-wall, a sweep's interrupt flag) may stop it early: the result
// is then marked incomplete.
MicrobenchResult run_microbench(const models::SystemSpec& system, const MicrobenchParams& params,
                                const sim::RunLimits& limits = {});

// The result as every kind reports it (workloads/workload_result.h).
WorkloadResult to_workload_result(const MicrobenchResult& result);

}  // namespace tessera::workloads::microbench
