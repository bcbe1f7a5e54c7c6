#include "sim/app/sweep/summary_metrics.h"

namespace tessera::app::sweep {
namespace {

std::optional<double> number_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

TimeCategory time_category(std::size_t i) { return static_cast<TimeCategory>(i); }

std::string part_column(TimeCategory c) { return std::string(workloads::replay::to_string(c)) + "_ns"; }

SummaryMetrics metrics_of(const nlohmann::json& summary) {
  SummaryMetrics m;
  if (!summary.is_object()) return m;
  m.makespan_ns = number_at(summary, "makespan_ns");
  const nlohmann::json none;
  const nlohmann::json& taxes = summary.contains("taxes_ns") ? summary["taxes_ns"] : none;
  const nlohmann::json& work = summary.contains("work_ns") ? summary["work_ns"] : none;
  for (std::size_t i = 0; i < kNumTimeCategories; ++i) {
    const TimeCategory c = time_category(i);
    const std::string name(workloads::replay::to_string(c));
    m.parts_ns[i] = number_at(workloads::replay::is_tax(c) ? taxes : work, name.c_str());
  }
  m.l2_hit_rate = number_at(summary, "l2_hit_rate");
  m.mall_hit_rate = number_at(summary, "mall_hit_rate");
  if (summary.contains("events") && summary["events"].is_number_integer()) m.events = summary["events"].get<std::uint64_t>();
  return m;
}

}  // namespace tessera::app::sweep
