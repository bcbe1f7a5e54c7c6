#pragma once
// Replays a tile-level trace on the machine of a system and reports what happened: per kernel
// start and end, the makespan, cache hit rates (aggregate and per XCD), bytes per link class.
// A wait or barrier that nothing will ever release is detected when the simulation drains and
// reported (DeadlockError) with the waiting workgroups, flags and barriers: never a hang.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/machine/resource_usage.h"
#include "models/system/system_spec.h"
#include "sim/core/run_result.h"
#include "sim/core/tick.h"
#include "workloads/replay/activity_log.h"
#include "workloads/replay/tax_ledger.h"
#include "workloads/trace/trace.h"
#include "workloads/workload_result.h"

namespace tessera::workloads::replay {

class DeadlockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReplayOptions {
  sim::RunLimits limits;                    // --max-events, --max-wall, a sweep's interrupt flag
  ActivityDetail activity = ActivityDetail::kNone;  // what ReplayResult::activity records (timelines)
  // Ablation (--ablate locality): accesses to intermediates and end-of-kernel releases take no
  // time, as if every intermediate stayed on chip.
  bool ideal_locality = false;
  // Ablation (--ablate sync): the dataflow oracle (dataflow.h). The trace is replayed once as
  // traced to record its data dependencies, then again on those alone; the result is the second's.
  bool dataflow_oracle = false;
  // Ablation (--ablate launch): the hosts' delays (host-side work between launches) take no time.
  bool skip_host_delays = false;
  std::uint64_t max_recorded = 1'000'000;   // slices + flag edges + GPU stretches + link samples kept at most (~170 MB of timeline)
};

struct ReplayResult {
  sim::Tick makespan_ps = 0;
  bool complete = true;  // false when a limit of ReplayOptions::limits stopped the run
  sim::StopReason stop_reason = sim::StopReason::kDrained;
  std::uint64_t events = 0;
  double wall_s = 0.0;
  std::vector<KernelTiming> kernels;  // in trace order
  std::vector<std::vector<double>> l2_hit_rate_per_die;  // [rank][die]; NaN-free: -1 when nothing loaded
  double l2_hit_rate = 0.0;    // over all loads of all ranks
  double mall_hit_rate = 0.0;  // of the bytes that reached a memory side (0 without a MALL)
  std::map<std::string, std::uint64_t> link_class_bytes;
  std::map<std::string, models::machine::ResourceClassUsage> resource_usage;  // by resource class
  // Where the time went: per GPU over [0, makespan], and for the run along its critical GPU
  // (the one whose last kernel ends last); each adds up to the makespan exactly.
  std::vector<CategoryTimes> gpu_times;
  std::uint32_t critical_rank = 0;
  CategoryTimes times{};
  ActivityLog activity;  // empty unless ReplayOptions::activity asks for it
  sim::stats::StatSnapshot statistics;  // every registered statistic at the end
};

// Throws ReplayError for a trace the system cannot run (more ranks than GPUs, buffers beyond
// HBM, sizes beyond replay_limits.h, an access outside its buffer), before the machine is
// built for what can be checked up front, and DeadlockError when it cannot finish.
ReplayResult replay_trace(const trace::Trace& trace, const models::SystemSpec& system, ReplayOptions options = {});

}  // namespace tessera::workloads::replay
