#include "sim/app/run_text.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/run/stop_message.h"
#include "sim/app/text_table.h"

namespace tessera::app {
namespace {

using workloads::replay::CategoryTimes;
using workloads::replay::TimeCategory;

// Per kernel: where it ran and when, in launch order; long traces list the first kernels only.
std::string render_kernels(const std::vector<workloads::KernelTiming>& kernels) {
  constexpr std::size_t kMaxRows = 40;
  TextTable t({"kernel", "GPU", "stream", "workgroups", "launch (ns)", "start (ns)", "end (ns)"});
  std::size_t rows = 0;
  for (const workloads::KernelTiming& k : kernels) {
    if (rows++ == kMaxRows) break;
    t.add_row({k.name, std::to_string(k.rank), std::to_string(k.stream), std::to_string(k.grid),
               fmt::format("{:.1f}", static_cast<double>(k.launch_ps) / 1e3),
               fmt::format("{:.1f}", static_cast<double>(k.start_ps) / 1e3),
               fmt::format("{:.1f}", static_cast<double>(k.end_ps) / 1e3)});
  }
  std::string out = t.render();
  if (kernels.size() > kMaxRows) out += fmt::format("({} more kernels in --json)\n", kernels.size() - kMaxRows);
  return out;
}

// The time categories in report order: work parts, then the taxes (docs/taxes.md).
constexpr std::array<TimeCategory, workloads::replay::kNumTimeCategories> kCategories{
    TimeCategory::kCompute,         TimeCategory::kMemory,              TimeCategory::kCommunication, TimeCategory::kIdle,
    TimeCategory::kBulkSynchronous, TimeCategory::kInterKernelLocality, TimeCategory::kLaunchOverhead};

std::string category_name(TimeCategory c) { return std::string(workloads::replay::to_string(c)); }

// The breakdown along the critical GPU; all zero for a run without one.
CategoryTimes critical_times(const run::RunResult& r) {
  return r.result.breakdown ? r.result.breakdown->times : CategoryTimes{};
}

// Where the time went, along the critical GPU: each part in us and as a share of the makespan.
std::string render_taxes(const run::RunResult& r) {
  const double makespan = r.makespan_ns();
  TextTable t({"where the time goes", "kind", "time (us)", "share (%)"});
  for (const TimeCategory c : kCategories) {
    const double ns = run::category_ns(r.result.breakdown->times, c);
    t.add_row({category_name(c), workloads::replay::is_tax(c) ? "tax" : "work", fmt::format("{:.3f}", ns / 1e3),
               fmt::format("{:.1f}", makespan > 0 ? 100.0 * ns / makespan : 0.0)});
  }
  t.add_row({"makespan", "", fmt::format("{:.3f}", makespan / 1e3), "100.0"});
  return fmt::format("Critical GPU: {} (parts add up to the makespan; docs/taxes.md)\n", r.result.breakdown->critical_rank) +
         t.render();
}

// The resource the run kept busiest (the highest utilisation of one resource over the run), as
// "xgmi gpu[0]->gpu[3] at 97.3% of its bandwidth"; nullopt when no resource carried bytes.
std::optional<std::string> busiest_resource(const run::RunResult& r) {
  if (!r.result.traffic) return std::nullopt;
  const std::pair<const std::string, models::machine::ResourceClassUsage>* busiest = nullptr;
  for (const auto& entry : r.result.traffic->resource_usage) {
    if (entry.second.busiest_utilisation > 0 &&
        (busiest == nullptr || entry.second.busiest_utilisation > busiest->second.busiest_utilisation)) {
      busiest = &entry;
    }
  }
  if (busiest == nullptr) return std::nullopt;
  return fmt::format("{} {} at {:.1f}% of its bandwidth", busiest->first, busiest->second.busiest_resource,
                     100.0 * busiest->second.busiest_utilisation);
}

}  // namespace

std::string render_run_text(const run::RunResult& r, const run::RunOptions& options) {
  const workloads::WorkloadResult& w = r.result;
  TextTable t({"quantity", "value", "unit"});
  t.add_row({"system", r.system, ""});
  t.add_row({"workload", r.workload, ""});
  t.add_row({"seed", std::to_string(r.seed), ""});
  if (w.measurement) t.add_row({"op", w.measurement->op, ""});
  if (const auto variant = r.variant()) t.add_row({"variant", *variant, ""});
  t.add_row({"simulated time", fmt::format("{:.3f}", r.makespan_ns()), "ns"});
  if (w.measurement && w.measurement->bandwidth_GBps) {
    t.add_row({"bandwidth per GPU", fmt::format("{:.2f}", *w.measurement->bandwidth_GBps), "GB/s"});
  }
  if (w.measurement && w.measurement->latency_ns) {
    t.add_row({"latency", fmt::format("{:.3f}", *w.measurement->latency_ns), "ns"});
  }
  if (w.traffic) {
    if (w.traffic->l2_hit_rate) t.add_row({"L2 hit rate", fmt::format("{:.1f}", 100.0 * *w.traffic->l2_hit_rate), "%"});
    if (w.traffic->mall_hit_rate) t.add_row({"MALL hit rate", fmt::format("{:.1f}", 100.0 * *w.traffic->mall_hit_rate), "%"});
    for (const auto& [link_class, bytes] : w.traffic->link_class_bytes) {
      t.add_row({"bytes over " + link_class, fmt::format("{:.3f}", static_cast<double>(bytes) / (1 << 20)), "MiB"});
    }
  }
  if (const auto busiest = busiest_resource(r)) t.add_row({"busiest resource", *busiest, ""});
  t.add_row({"events", std::to_string(w.events), "events"});
  t.add_row({"wall time", fmt::format("{:.3f}", w.wall_s), "s"});
  t.add_row({"event rate", fmt::format("{:.2f}", r.wall_events_per_s() / 1e6), "M events/s"});
  std::string out = t.render();
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "\n" + std::string here.
  if (w.breakdown) out.append("\n").append(render_taxes(r));
  if (w.breakdown && !w.breakdown->kernels.empty()) out.append("\n").append(render_kernels(w.breakdown->kernels));
  if (const auto stopped = run::stop_message(r, options)) out += "note: " + *stopped + "\n";
  if (!r.zero_latency_keys.empty()) {
    out += fmt::format("note: latencies at 0 ps in this system file (uncalibrated, see docs/hardware-sources.md): {}\n",
                       fmt::join(r.zero_latency_keys, ", "));
  }
  return out;
}



std::string render_side_by_side(const std::vector<report::LabeledRun>& runs) {
  std::vector<std::string> header{"time (us)"};
  for (const report::LabeledRun& r : runs) header.push_back(r.label);
  TextTable t(header);
  std::size_t fastest = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].result.makespan_ns() < runs[fastest].result.makespan_ns()) {
      fastest = i;
    }
  }
  for (const TimeCategory c : kCategories) {
    std::vector<std::string> row{category_name(c)};
    for (const report::LabeledRun& r : runs) row.push_back(fmt::format("{:.3f}", run::category_ns(critical_times(r.result), c) / 1e3));
    t.add_row(row);
  }
  std::vector<std::string> total{"makespan"};
  for (const report::LabeledRun& r : runs) total.push_back(fmt::format("{:.3f}", r.result.makespan_ns() / 1e3));
  t.add_row(total);
  std::string out = "Side by side (critical GPU of each run):\n" + t.render();
  const run::RunResult& best = runs[fastest].result;
  out += fmt::format("Fastest: {} ({:.3f} us).\n", runs[fastest].label, best.makespan_ns() / 1e3);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == fastest) continue;
    const run::RunResult& s = runs[i].result;
    // The parts that grew the most explain the gap.
    std::vector<std::pair<double, std::string>> deltas;
    for (const TimeCategory c : kCategories) {
      deltas.emplace_back(run::category_ns(critical_times(s), c) - run::category_ns(critical_times(best), c), category_name(c));
    }
    std::sort(deltas.begin(), deltas.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> parts;
    for (const auto& [delta, name] : deltas) {
      if (delta > 0 && parts.size() < 3) parts.push_back(fmt::format("{} +{:.3f} us", name, delta / 1e3));
    }
    out += fmt::format("{} is {:.3f} us slower: {}", runs[i].label, (s.makespan_ns() - best.makespan_ns()) / 1e3,
                       fmt::join(parts, ", "));
    if (const auto busiest = busiest_resource(s)) out += fmt::format("; its busiest resource: {}", *busiest);
    out += ".\n";
  }
  return out;
}


std::string render_ablation(const run::RunResult& s0, const AblatedRun& ablated, const Ablation& a) {
  if (!s0.result.breakdown) return "";
  if (ablated.unchanged) {
    std::vector<std::string> keys;  // "system.gpu.atomics.local_latency=0 ps" -> "gpu.atomics.local_latency"
    for (const std::string& set : a.sets) keys.push_back(set.substr(set.find('.') + 1, set.find('=') - set.find('.') - 1));
    return fmt::format("Ablation '{}' changes nothing here: what it sets to 0 is 0 ps already in this system ({}); the "
                       "attributed {} tax is {:.3f} us. Set those keys (e.g. from `tessera calibrate`, "
                       "docs/validation.md) to see what the mechanism costs.\n",
                       a.name, fmt::join(keys, ", "), category_name(a.tax),
                       run::category_ns(critical_times(s0), a.tax) / 1e3);
  }
  const run::RunResult& s1 = ablated.result;
  TextTable t({"time (us)", "as run", "ablated", "change"});
  for (const TimeCategory c : kCategories) {
    const double v0 = run::category_ns(critical_times(s0), c) / 1e3;
    const double v1 = run::category_ns(critical_times(s1), c) / 1e3;
    t.add_row({category_name(c), fmt::format("{:.3f}", v0), fmt::format("{:.3f}", v1), fmt::format("{:+.3f}", v1 - v0)});
  }
  const double m0 = s0.makespan_ns() / 1e3;
  const double m1 = s1.makespan_ns() / 1e3;
  t.add_row({"makespan", fmt::format("{:.3f}", m0), fmt::format("{:.3f}", m1), fmt::format("{:+.3f}", m1 - m0)});
  return fmt::format("Ablation '{}' ({} idealised): the makespan moves by {:+.3f} us; the attributed {} tax was {:.3f} us.\n",
                     a.name, category_name(a.tax), m1 - m0, category_name(a.tax), run::category_ns(critical_times(s0), a.tax) / 1e3) +
         t.render();
}

}  // namespace tessera::app
