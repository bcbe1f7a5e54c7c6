#include "sim/app/sweep/results_csv.h"

#include <fmt/format.h>

#include "sim/app/sweep/summary_metrics.h"

namespace tessera::app::sweep {
namespace {

std::string fixed(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string();
}

}  // namespace

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

std::vector<std::string> results_header(const std::vector<std::string>& swept_keys, bool collective) {
  std::vector<std::string> h{"point"};
  h.insert(h.end(), swept_keys.begin(), swept_keys.end());
  h.push_back("makespan_ns");
  if (collective) h.insert(h.end(), {"time_us", "algbw_GBps", "busbw_GBps"});
  for (std::size_t i = 0; i < kNumTimeCategories; ++i) h.push_back(part_column(time_category(i)));
  for (const char* c : {"l2_hit_rate", "mall_hit_rate", "events", "status", "error", "wall_s"}) h.emplace_back(c);
  return h;
}

std::vector<std::string> results_row(const PointResult& result, const std::vector<std::string>& values,
                                     bool collective) {
  std::vector<std::string> row{std::to_string(result.index)};
  row.insert(row.end(), values.begin(), values.end());
  const SummaryMetrics m = metrics_of(result.result);
  row.push_back(fixed(m.makespan_ns, 3));
  if (collective) {
    row.push_back(fixed(m.time_us, 3));
    row.push_back(fixed(m.algbw_GBps, 3));
    row.push_back(fixed(m.busbw_GBps, 3));
  }
  for (const auto& part : m.parts_ns) row.push_back(fixed(part, 3));
  row.push_back(fixed(m.l2_hit_rate, 6));
  row.push_back(fixed(m.mall_hit_rate, 6));
  row.push_back(m.events ? std::to_string(*m.events) : std::string());
  row.push_back(result.ok ? "ok" : "failed");
  row.push_back(result.error);
  row.push_back(fmt::format("{:.3f}", result.wall_s));
  return row;
}

bool has_collective_columns(const std::vector<PointResult>& results) {
  for (const PointResult& r : results) {
    if (r.result && r.result->result.collective) return true;
  }
  return false;
}

std::string results_csv(const std::vector<std::string>& swept_keys, const std::vector<std::vector<std::string>>& values,
                        const std::vector<PointResult>& results) {
  const bool collective = has_collective_columns(results);
  std::string out;
  const auto emit = [&out](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_cell(cells[c]);
    }
    out += '\n';
  };
  emit(results_header(swept_keys, collective));
  for (std::size_t i = 0; i < results.size(); ++i) emit(results_row(results[i], values.at(i), collective));
  return out;
}

}  // namespace tessera::app::sweep
