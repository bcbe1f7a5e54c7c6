#include "sim/app/sweep/summary_metrics.h"

namespace tessera::app::sweep {

TimeCategory time_category(std::size_t i) { return static_cast<TimeCategory>(i); }

std::string part_column(TimeCategory c) { return std::string(workloads::replay::to_string(c)) + "_ns"; }

SummaryMetrics metrics_of(const run::RunResult& result) {
  SummaryMetrics m;
  const workloads::WorkloadResult& w = result.result;
  m.makespan_ns = result.makespan_ns();
  if (w.breakdown) {
    for (std::size_t i = 0; i < kNumTimeCategories; ++i) m.parts_ns[i] = run::category_ns(w.breakdown->times, time_category(i));
  }
  if (w.traffic) {
    m.l2_hit_rate = w.traffic->l2_hit_rate;
    m.mall_hit_rate = w.traffic->mall_hit_rate;
  }
  m.events = w.events;
  if (w.collective) {
    m.time_us = w.collective->time_us;
    m.algbw_GBps = w.collective->algbw_GBps;
    m.busbw_GBps = w.collective->busbw_GBps;
  }
  return m;
}

SummaryMetrics metrics_of(const std::optional<run::RunResult>& result) {
  return result ? metrics_of(*result) : SummaryMetrics{};
}

}  // namespace tessera::app::sweep
