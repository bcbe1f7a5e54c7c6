#include "sim/app/select/selection_set.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.h"
#include "sim/config/units.h"

namespace tessera::app::select {
namespace {

using sim::config::ConfigError;
using sim::config::SourceLocation;

// A cell as a number: a plain number, or a quantity with a unit (bytes, time, bandwidth,
// frequency) in its base unit; nullopt for anything else (a category).
std::optional<double> number_of(const std::string& text) {
  const std::function<double(const std::string&)> parsers[] = {
      [](const std::string& t) { return sim::config::parse_real(t); },
      [](const std::string& t) { return static_cast<double>(sim::config::parse_bytes(t)); },
      [](const std::string& t) { return static_cast<double>(sim::config::parse_time_ps(t)); },
      [](const std::string& t) { return sim::config::parse_bandwidth_bytes_per_s(t); },
      [](const std::string& t) { return sim::config::parse_frequency_hz(t); },
  };
  for (const auto& parse : parsers) {
    try {
      return parse(text);
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

std::size_t required_column(const ResultsTable& t, const std::string& name, const std::vector<std::string>& swept,
                            const char* what) {
  const auto c = t.column(name);
  if (!c || std::find(swept.begin(), swept.end(), t.columns[*c]) == swept.end()) {
    throw ConfigError(SourceLocation{t.file, 1, 1}, name,
                      fmt::format("no swept key '{}' to use as the {} (the swept keys: {})", name, what,
                                  fmt::join(swept, ", ")));
  }
  return *c;
}

std::string last_segment(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

}  // namespace

std::string Feature::label() const { return numeric ? short_name : fmt::format("{} = {}", short_name, category); }

std::vector<std::string> swept_columns(const ResultsTable& table) {
  std::vector<std::string> out;
  const auto end = std::find(table.columns.begin(), table.columns.end(), "makespan_ns");
  if (table.columns.empty() || table.columns.front() != "point" || end == table.columns.end()) {
    throw ConfigError(SourceLocation{table.file, 1, 1}, "",
                      "not a sweep's results.csv: the header must start with point, the swept keys, makespan_ns");
  }
  out.assign(table.columns.begin() + 1, end);
  return out;
}

SelectionSet build_selection_set(const ResultsTable& table, const std::string& target,
                                 const std::vector<std::string>& features) {
  const std::vector<std::string> swept = swept_columns(table);
  SelectionSet s;
  const std::size_t target_col = required_column(table, target, swept, "target");
  s.target = table.columns[target_col];
  std::vector<std::size_t> feature_cols;
  if (features.empty()) {
    for (const std::string& key : swept) {
      if (key != s.target) feature_cols.push_back(*table.column(key));
    }
  } else {
    for (const std::string& f : features) {
      const std::size_t c = required_column(table, f, swept, "feature");
      if (c == target_col) throw ConfigError(SourceLocation{table.file, 1, 1}, f, "the target cannot be a feature");
      if (std::find(feature_cols.begin(), feature_cols.end(), c) == feature_cols.end()) feature_cols.push_back(c);
    }
  }
  if (feature_cols.empty()) {
    throw ConfigError(SourceLocation{table.file, 1, 1}, s.target, "the sweep has no swept key besides the target");
  }
  for (std::size_t c : feature_cols) s.feature_columns.push_back(table.columns[c]);
  std::vector<std::size_t> group_cols;  // every swept key but the target
  for (const std::string& key : swept) {
    if (key != s.target) group_cols.push_back(*table.column(key));
  }
  const std::size_t makespan_col = *table.column("makespan_ns");
  const auto status_col = table.column("status");

  // Rows by group, in order of first appearance; classes likewise.
  std::map<std::vector<std::string>, std::size_t> group_index;
  std::vector<std::vector<std::size_t>> group_rows;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (status_col && row[*status_col] != "ok") continue;
    const std::string& cls = row[target_col];
    if (std::find(s.classes.begin(), s.classes.end(), cls) == s.classes.end()) s.classes.push_back(cls);
    std::vector<std::string> key;
    for (std::size_t c : group_cols) key.push_back(row[c]);
    const auto [it, fresh] = group_index.emplace(key, group_rows.size());
    if (fresh) group_rows.emplace_back();
    group_rows[it->second].push_back(r);
  }
  if (s.classes.size() < 2) {
    throw ConfigError(SourceLocation{table.file, 1, 1}, s.target,
                      fmt::format("the target has {} value(s) among the finished points: nothing to choose between",
                                  s.classes.size()));
  }
  // Which feature columns are numbers (every cell of a finished point is one).
  std::vector<bool> numeric(feature_cols.size(), true);
  std::vector<std::vector<std::string>> categories(feature_cols.size());
  for (const auto& rows : group_rows) {
    for (std::size_t f = 0; f < feature_cols.size(); ++f) {
      const std::string& cell = table.rows[rows.front()][feature_cols[f]];
      if (!number_of(cell)) numeric[f] = false;
      if (std::find(categories[f].begin(), categories[f].end(), cell) == categories[f].end()) categories[f].push_back(cell);
    }
  }
  std::vector<std::string> shorts;
  for (std::size_t c : feature_cols) shorts.push_back(last_segment(table.columns[c]));
  for (std::size_t f = 0; f < feature_cols.size(); ++f) {
    const bool collides = std::count(shorts.begin(), shorts.end(), shorts[f]) > 1;
    const std::string name = collides ? table.columns[feature_cols[f]] : shorts[f];
    if (numeric[f]) {
      s.features.push_back({table.columns[feature_cols[f]], name, true, ""});
    } else {
      for (const std::string& v : categories[f]) s.features.push_back({table.columns[feature_cols[f]], name, false, v});
    }
  }
  for (const auto& rows : group_rows) {
    Group g;
    g.line = table.lines[rows.front()];
    g.makespan_ns.assign(s.classes.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t r : rows) {
      const std::string& cell = table.rows[r][makespan_col];
      const auto t = number_of(cell);
      if (!t) {
        throw ConfigError(SourceLocation{table.file, table.lines[r], 1}, "makespan_ns",
                          fmt::format("expected a number, got '{}'", cell));
      }
      const auto cls = static_cast<std::size_t>(
          std::find(s.classes.begin(), s.classes.end(), table.rows[r][target_col]) - s.classes.begin());
      g.makespan_ns[cls] = *t;
    }
    if (std::any_of(g.makespan_ns.begin(), g.makespan_ns.end(), [](double v) { return std::isnan(v); })) {
      ++s.incomplete_groups;
      continue;
    }
    g.label = static_cast<std::size_t>(std::min_element(g.makespan_ns.begin(), g.makespan_ns.end()) - g.makespan_ns.begin());
    for (std::size_t f = 0; f < feature_cols.size(); ++f) g.values.push_back(table.rows[rows.front()][feature_cols[f]]);
    for (const Feature& feature : s.features) {
      const auto col = static_cast<std::size_t>(
          std::find(s.feature_columns.begin(), s.feature_columns.end(), feature.column) - s.feature_columns.begin());
      const std::string& cell = g.values[col];
      g.x.push_back(feature.numeric ? *number_of(cell) : (cell == feature.category ? 1.0 : 0.0));
    }
    s.groups.push_back(std::move(g));
  }
  if (s.groups.empty()) {
    throw ConfigError(SourceLocation{table.file, 1, 1}, s.target,
                      "no group of points that differ only in the target has a finished point for every value of it");
  }
  return s;
}

}  // namespace tessera::app::select
