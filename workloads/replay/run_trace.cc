#include "workloads/replay/run_trace.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "workloads/replay/replay.h"

namespace tessera::workloads::replay {
namespace {

// Per link class: the mean utilisation of the class's links that carried bytes over each of kBins
// equal stretches of [0, end_ps), as (stretch start ns, utilisation) steps. The summary stays a
// few kB per class; a per-link, per-sample view is the full timeline's.
std::vector<LinkUtilisation> binned_link_utilisation(const ActivityLog& log, sim::Tick end_ps) {
  constexpr std::size_t kBins = 200;
  const double bin_ps = static_cast<double>(end_ps) / kBins;
  std::vector<std::vector<double>> busy(log.links.size(), std::vector<double>(kBins, 0.0));  // utilisation x ps per bin
  // Samples are grouped by link, in time order: integrate each step over the bins it covers.
  for (std::size_t i = 0; i < log.link_samples.size() && bin_ps > 0; ++i) {
    const LinkSample& s = log.link_samples[i];
    const bool last_of_link = i + 1 == log.link_samples.size() || log.link_samples[i + 1].link != s.link;
    const double from = static_cast<double>(s.time_ps);
    const double to = last_of_link ? static_cast<double>(end_ps) : static_cast<double>(log.link_samples[i + 1].time_ps);
    for (auto b = static_cast<std::size_t>(from / bin_ps); b < kBins && static_cast<double>(b) * bin_ps < to; ++b) {
      const double lo = std::max(from, static_cast<double>(b) * bin_ps);
      const double hi = std::min(to, static_cast<double>(b + 1) * bin_ps);
      if (hi > lo) busy[s.link][b] += s.utilisation * (hi - lo);
    }
  }
  std::map<std::string, std::pair<std::vector<double>, std::size_t>> by_class;  // summed busy per bin, links
  for (std::size_t l = 0; l < log.links.size(); ++l) {
    auto& [sum, links] = by_class.try_emplace(log.links[l].link_class, std::vector<double>(kBins, 0.0), 0).first->second;
    for (std::size_t b = 0; b < kBins; ++b) sum[b] += busy[l][b];
    ++links;
  }
  std::vector<LinkUtilisation> out;
  for (const auto& [link_class, totals] : by_class) {
    LinkUtilisation mean{fmt::format("{} links (mean of {})", link_class, totals.second), link_class, {}};
    for (std::size_t b = 0; b < kBins && bin_ps > 0; ++b) {
      mean.samples.emplace_back(static_cast<double>(b) * bin_ps / 1e3,
                                totals.first[b] / bin_ps / static_cast<double>(totals.second));
    }
    out.push_back(std::move(mean));
  }
  return out;
}

WorkloadResult to_workload_result(ReplayResult& r) {
  WorkloadResult out;
  out.makespan_ps = r.makespan_ps;
  out.complete = r.complete;
  out.stop_reason = r.stop_reason;
  out.events = r.events;
  out.wall_s = r.wall_s;
  out.breakdown = Breakdown{std::move(r.kernels), std::move(r.gpu_times), r.critical_rank, r.times};
  Traffic traffic;
  traffic.l2_hit_rate = r.l2_hit_rate;
  traffic.mall_hit_rate = r.mall_hit_rate;
  auto& per_xcd = traffic.l2_hit_rate_per_xcd.emplace();
  for (const auto& dies : r.l2_hit_rate_per_die) {
    auto& row = per_xcd.emplace_back();
    for (const double v : dies) row.push_back(v < 0 ? std::nullopt : std::optional<double>(v));
  }
  traffic.link_class_bytes = std::move(r.link_class_bytes);
  traffic.resource_usage = std::move(r.resource_usage);
  if (!r.activity.links.empty()) traffic.link_utilisation = binned_link_utilisation(r.activity, r.makespan_ps);
  out.traffic = std::move(traffic);
  out.statistics = std::move(r.statistics);
  return out;
}

}  // namespace

WorkloadOutcome run_trace(const trace::Trace& trace, const models::SystemSpec& system, const RunContext& context) {
  ReplayOptions options;
  options.limits = context.limits;
  options.activity = context.activity;
  options.ideal_locality = context.ideal_locality;
  options.dataflow_oracle = context.dataflow_oracle;
  options.skip_host_delays = context.skip_host_delays;
  ReplayResult result = replay_trace(trace, system, options);
  WorkloadResult typed = to_workload_result(result);
  return {std::move(typed), std::move(result.activity)};
}

}  // namespace tessera::workloads::replay
