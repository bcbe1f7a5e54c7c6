#include "sim/app/sweep/results_csv.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include <fmt/format.h>

#include "sim/app/sweep/summary_metrics.h"
#include "sim/app/uncertainty/makespan_spread.h"

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

ResultColumns result_columns(const std::vector<std::string>& swept_keys,
                             const std::vector<std::vector<std::string>>& values,
                             const std::vector<PointResult>& results) {
  ResultColumns columns;
  columns.fastest_share.assign(results.size(), std::nullopt);
  for (const PointResult& r : results) {
    columns.collective = columns.collective || (r.result && r.result->result.collective);
    columns.sampled = columns.sampled || (r.result && !r.result->sampled_makespans_ns.empty());
  }
  const auto variant_key = std::find_if(swept_keys.begin(), swept_keys.end(), [](const std::string& k) {
    return k == "workload.variant" || k == "workload.mapping";
  });
  if (!columns.sampled || variant_key == swept_keys.end()) return columns;
  const std::size_t v = static_cast<std::size_t>(variant_key - swept_keys.begin());
  // Rows that differ only in the variant compare sample by sample: sample s of each drew the same
  // system (the draws depend on the seed, the sample and the key path only).
  std::map<std::vector<std::string>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i].result || results[i].result->sampled_makespans_ns.empty()) continue;
    std::vector<std::string> others = values.at(i);
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(v));
    groups[others].push_back(i);
  }
  for (const auto& [others, rows] : groups) {
    std::size_t samples = SIZE_MAX;
    for (std::size_t i : rows) samples = std::min(samples, results[i].result->sampled_makespans_ns.size());
    std::vector<std::size_t> wins(results.size(), 0);
    for (std::size_t s = 0; s < samples; ++s) {
      std::size_t best = rows.front();
      for (std::size_t i : rows) {
        if (results[i].result->sampled_makespans_ns[s] < results[best].result->sampled_makespans_ns[s]) best = i;
      }
      ++wins[best];
    }
    for (std::size_t i : rows) columns.fastest_share[i] = static_cast<double>(wins[i]) / static_cast<double>(samples);
  }
  return columns;
}

std::vector<std::string> results_header(const std::vector<std::string>& swept_keys, const ResultColumns& columns) {
  std::vector<std::string> h{"point"};
  h.insert(h.end(), swept_keys.begin(), swept_keys.end());
  h.push_back("makespan_ns");
  if (columns.sampled) h.insert(h.end(), {"makespan_p5_ns", "makespan_median_ns", "makespan_p95_ns", "fastest_share"});
  if (columns.collective) h.insert(h.end(), {"time_us", "algbw_GBps", "busbw_GBps"});
  for (std::size_t i = 0; i < kNumTimeCategories; ++i) h.push_back(part_column(time_category(i)));
  for (const char* c : {"l2_hit_rate", "mall_hit_rate", "events", "status", "error", "wall_s"}) h.emplace_back(c);
  return h;
}

std::vector<std::string> results_row(const PointResult& result, const std::vector<std::string>& values,
                                     const ResultColumns& columns, std::size_t row_index) {
  std::vector<std::string> row{std::to_string(result.index)};
  row.insert(row.end(), values.begin(), values.end());
  const SummaryMetrics m = metrics_of(result.result);
  row.push_back(fixed(m.makespan_ns, 3));
  if (columns.sampled) {
    std::vector<double> sorted = result.result ? result.result->sampled_makespans_ns : std::vector<double>{};
    std::sort(sorted.begin(), sorted.end());
    for (const double q : {0.05, 0.5, 0.95}) {
      row.push_back(sorted.empty() ? std::string() : fixed(uncertainty::quantile(sorted, q), 3));
    }
    const auto& share = row_index < columns.fastest_share.size() ? columns.fastest_share[row_index] : std::nullopt;
    row.push_back(fixed(share, 4));
  }
  if (columns.collective) {
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

std::string results_csv(const std::vector<std::string>& swept_keys, const std::vector<std::vector<std::string>>& values,
                        const std::vector<PointResult>& results) {
  const ResultColumns columns = result_columns(swept_keys, values, results);
  std::string out;
  const auto emit = [&out](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_cell(cells[c]);
    }
    out += '\n';
  };
  emit(results_header(swept_keys, columns));
  for (std::size_t i = 0; i < results.size(); ++i) emit(results_row(results[i], values.at(i), columns, i));
  return out;
}

}  // namespace tessera::app::sweep
