#include "sim/app/run_text.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/report/busiest_resource.h"
#include "sim/app/run/stop_message.h"
#include "sim/app/text_table.h"
#include "sim/app/time_unit.h"

namespace tessera::app {
namespace {

using workloads::replay::CategoryTimes;
using workloads::replay::TimeCategory;

double ns_of(sim::Tick ps) { return static_cast<double>(ps) / 1e3; }

// Per kernel: where it ran and when, in launch order, in one unit for the latest time shown;
// long traces list the first kernels only.
std::string render_kernels(const std::vector<workloads::KernelTiming>& kernels) {
  constexpr std::size_t kMaxRows = 40;
  const std::size_t shown = std::min(kernels.size(), kMaxRows);
  double max_ns = 0.0;
  for (std::size_t i = 0; i < shown; ++i) {
    max_ns = std::max({max_ns, ns_of(kernels[i].launch_ps), ns_of(kernels[i].start_ps), ns_of(kernels[i].end_ps)});
  }
  const TimeUnit unit = pick_time_unit(max_ns);
  TextTable t({"kernel", "GPU", "stream", "workgroups", with_unit("launch", unit), with_unit("start", unit),
               with_unit("end", unit)});
  for (std::size_t i = 0; i < shown; ++i) {
    const workloads::KernelTiming& k = kernels[i];
    t.add_row({k.name, std::to_string(k.rank), std::to_string(k.stream), std::to_string(k.grid),
               format_time(ns_of(k.launch_ps), unit), format_time(ns_of(k.start_ps), unit),
               format_time(ns_of(k.end_ps), unit)});
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

// Where the time went, along the critical GPU: each part in the makespan's table unit and as a
// share of the makespan.
std::string render_taxes(const run::RunResult& r) {
  const double makespan = r.makespan_ns();
  const TimeUnit unit = pick_time_unit(makespan);
  TextTable t({"where the time goes", "kind", with_unit("time", unit), "share (%)"});
  for (const TimeCategory c : kCategories) {
    const double ns = run::category_ns(r.result.breakdown->times, c);
    t.add_row({category_name(c), workloads::replay::is_tax(c) ? "tax" : "work", format_time(ns, unit),
               fmt::format("{:.1f}", makespan > 0 ? 100.0 * ns / makespan : 0.0)});
  }
  t.add_row({"makespan", "", format_time(makespan, unit), "100.0"});
  return fmt::format("Critical GPU: {} (parts add up to the makespan; docs/taxes.md)\n", r.result.breakdown->critical_rank) +
         t.render();
}

// The resource the run kept busiest, as "xgmi gpu[0]->gpu[3] at 97.3% of its bandwidth"; nullopt
// when no resource carried bytes.
std::optional<std::string> busiest_resource(const run::RunResult& r) {
  const std::optional<report::BusiestResource> busiest = report::busiest_resource(r);
  if (!busiest) return std::nullopt;
  return report::describe(*busiest);
}

// A collective's figures as nccl-tests prints a row (its units, its column names; `type` is the
// dtype's name here), under one heading naming the op and its ranks.
std::string render_collective(const workloads::CollectiveFigures& c) {
  TextTable t({"size (B)", "count (elements)", "type", "iterations", "time (us)", "algbw (GB/s)", "busbw (GB/s)"});
  t.add_row({std::to_string(c.size_bytes), std::to_string(c.count), c.dtype, std::to_string(c.iterations),
             fmt::format("{:.2f}", c.time_us), fmt::format("{:.2f}", c.algbw_GBps), fmt::format("{:.2f}", c.busbw_GBps)});
  std::string ran = fmt::format("{} {}{}, {} channel(s)", c.library, c.algorithm,
                                c.protocol.empty() ? "" : " " + c.protocol, c.channels);
  if (c.library_model_time_us > 0) {
    const std::string library = c.library == "rccl" ? "RCCL" : "NCCL";
    ran += fmt::format("; {}'s own model predicts {:.2f} us", library, c.library_model_time_us);
  }
  return fmt::format("{} on {} ranks ({}), as nccl-tests reports it (time per iteration; docs/workloads.md):\n", c.op,
                     c.ranks, ran) +
         t.render();
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
  if (w.collective) out.append("\n").append(render_collective(*w.collective));
  if (w.breakdown) out.append("\n").append(render_taxes(r));
  if (w.breakdown && !w.breakdown->kernels.empty()) out.append("\n").append(render_kernels(w.breakdown->kernels));
  if (const auto stopped = run::stop_message(r, options)) out += "note: " + *stopped + "\n";
  if (!r.zero_latency_keys.empty()) {
    out += fmt::format("note: latencies at 0 ps in this system file (uncalibrated, see docs/hardware-sources.md): {}\n",
                       fmt::join(r.zero_latency_keys, ", "));
  }
  if (!r.estimated_keys.empty()) {
    out += fmt::format("note: estimates, not measurements, in this system file (their ranges: tessera run "
                       "--uncertainty N; docs/hardware-sources.md): {}\n",
                       fmt::join(r.estimated_keys, ", "));
  }
  return out;
}



std::string render_side_by_side(const std::vector<report::LabeledRun>& runs) {
  // One unit for the table and the sentences under it, from the longest makespan (no part exceeds it).
  double max_ns = 0.0;
  for (const report::LabeledRun& r : runs) max_ns = std::max(max_ns, r.result.makespan_ns());
  const TimeUnit unit = pick_time_unit(max_ns);
  const std::string_view u = unit_symbol(unit);
  std::vector<std::string> header{with_unit("time", unit)};
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
    for (const report::LabeledRun& r : runs) row.push_back(format_time(run::category_ns(critical_times(r.result), c), unit));
    t.add_row(row);
  }
  std::vector<std::string> total{"makespan"};
  for (const report::LabeledRun& r : runs) total.push_back(format_time(r.result.makespan_ns(), unit));
  t.add_row(total);
  std::string out = "Side by side (critical GPU of each run):\n" + t.render();
  const run::RunResult& best = runs[fastest].result;
  out += fmt::format("Fastest: {} ({} {}).\n", runs[fastest].label, format_time(best.makespan_ns(), unit), u);
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
      if (delta > 0 && parts.size() < 3) parts.push_back(fmt::format("{} {} {}", name, format_time_change(delta, unit), u));
    }
    out += fmt::format("{} is {} {} slower: {}", runs[i].label, format_time(s.makespan_ns() - best.makespan_ns(), unit), u,
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
    // In the unit of the run's own table of where the time goes.
    const TimeUnit unit = pick_time_unit(s0.makespan_ns());
    std::string out = fmt::format(
        "Ablation '{}' changes nothing here: what it sets to 0 is 0 ps already in this system ({}); the attributed {} "
        "tax is {} {}. Set those keys (e.g. from `tessera calibrate`, docs/validation.md) to see what the mechanism "
        "costs.\n",
        a.name, fmt::join(keys, ", "), category_name(a.tax), format_time(run::category_ns(critical_times(s0), a.tax), unit),
        unit_symbol(unit));
    if (ablated.reference && ablated.with_reference) {
      const run::RunResult& measured = *ablated.with_reference;
      const TimeUnit u = pick_time_unit(std::max(s0.makespan_ns(), measured.makespan_ns()));
      out += fmt::format(
          "With the costs measured on {} ({}), the makespan would move by {} {} to {} {}, of which {} {} {}.\n",
          ablated.reference->system, ablated.reference->values,
          format_time_change(measured.makespan_ns() - s0.makespan_ns(), u), unit_symbol(u),
          format_time(measured.makespan_ns(), u), unit_symbol(u),
          format_time(run::category_ns(critical_times(measured), a.tax), u), unit_symbol(u), category_name(a.tax));
    }
    return out;
  }
  const run::RunResult& s1 = ablated.result;
  // One unit for the table and the sentence above it, from the longer makespan (no part exceeds it).
  const TimeUnit unit = pick_time_unit(std::max(s0.makespan_ns(), s1.makespan_ns()));
  const auto time = [unit](double ns) { return fmt::format("{} {}", format_time(ns, unit), unit_symbol(unit)); };
  const auto change = [unit](double ns) { return fmt::format("{} {}", format_time_change(ns, unit), unit_symbol(unit)); };
  TextTable t({with_unit("time", unit), "as run", "ablated", "change"});
  for (const TimeCategory c : kCategories) {
    const double v0 = run::category_ns(critical_times(s0), c);
    const double v1 = run::category_ns(critical_times(s1), c);
    t.add_row({category_name(c), format_time(v0, unit), format_time(v1, unit), format_time_change(v1 - v0, unit)});
  }
  const double m0 = s0.makespan_ns();
  const double m1 = s1.makespan_ns();
  t.add_row({"makespan", format_time(m0, unit), format_time(m1, unit), format_time_change(m1 - m0, unit)});
  const double attributed = run::category_ns(critical_times(s0), a.tax);
  if (a.dataflow_oracle) {
    return fmt::format("Ablation '{}' (the dataflow oracle: only the trace's data dependencies order its work, no kernel "
                       "boundary, stream, host sync, flag or barrier): {}, the bound a fine-grained rewrite of this "
                       "program can reach. Measured bulk-synchronous tax {} ({:.1f}% of the makespan); the "
                       "attributed {} tax was {}.\n",
                       a.name, time(m1), time(m0 - m1), m0 > 0 ? 100.0 * (m0 - m1) / m0 : 0.0, category_name(a.tax),
                       time(attributed)) +
           t.render();
  }
  return fmt::format("Ablation '{}' ({} idealised): the makespan moves by {}; the attributed {} tax was {}.\n",
                     a.name, category_name(a.tax), change(m1 - m0), category_name(a.tax), time(attributed)) +
         t.render();
}

}  // namespace tessera::app
