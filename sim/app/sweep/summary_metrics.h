#pragma once
// The numbers of a run that sweeps and comparisons tabulate: the makespan, its seven
// parts (the work kinds and the three taxes, in workloads/replay/activity_log.h's order), the
// cache hit rates, the event count, and a collective's time per iteration, algbw and busbw. Each is optional: microbenchmark and PHOLD runs carry no
// taxes, a run without cache accesses has no hit rate, and a failed point has nothing.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "sim/app/run/run_result.h"

#include "workloads/replay/activity_log.h"

namespace tessera::app::sweep {

using workloads::replay::kNumTimeCategories;
using workloads::replay::TimeCategory;

struct SummaryMetrics {
  std::optional<double> makespan_ns;
  std::array<std::optional<double>, kNumTimeCategories> parts_ns;  // indexed by TimeCategory
  std::optional<double> l2_hit_rate;
  std::optional<double> mall_hit_rate;
  std::optional<std::uint64_t> events;
  // A collective's nccl-tests figures (workloads::CollectiveFigures); other kinds have none.
  std::optional<double> time_us;
  std::optional<double> algbw_GBps;
  std::optional<double> busbw_GBps;
};

SummaryMetrics metrics_of(const run::RunResult& result);
SummaryMetrics metrics_of(const std::optional<run::RunResult>& result);

// The categories in order, and each one's column name ("compute_ns", "bulk_synchronous_ns").
TimeCategory time_category(std::size_t i);
std::string part_column(TimeCategory c);

}  // namespace tessera::app::sweep
