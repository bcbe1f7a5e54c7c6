#include "sim/app/select/results_table.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/config/config_error.h"

namespace tessera::app::select {
namespace {

using sim::config::ConfigError;
using sim::config::SourceLocation;

}  // namespace

std::optional<std::size_t> ResultsTable::column(const std::string& name) const {
  std::optional<std::size_t> suffix;
  std::size_t suffix_count = 0;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
    if (columns[i].size() > name.size() && columns[i].ends_with("." + name)) {
      suffix = i;
      ++suffix_count;
    }
  }
  return suffix_count == 1 ? suffix : std::nullopt;
}

ResultsTable parse_results_table(const std::string& text, const std::string& file) {
  ResultsTable t;
  t.file = file;
  std::vector<std::vector<std::string>> records;
  std::vector<int> record_lines;
  std::vector<std::string> record;
  std::string cell;
  bool quoted = false;
  bool any = false;  // the record has content
  int line = 1;
  int record_line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      record.push_back(std::move(cell));
      cell.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !cell.empty()) {
        record.push_back(std::move(cell));
        records.push_back(std::move(record));
        record_lines.push_back(record_line);
      }
      record.clear();
      cell.clear();
      any = false;
      ++line;
      record_line = line;
    } else {
      cell += c;
      any = true;
    }
  }
  if (quoted) throw ConfigError(SourceLocation{file, record_line, 1}, "", "a quoted cell is never closed");
  if (any || !cell.empty()) {
    record.push_back(std::move(cell));
    records.push_back(std::move(record));
    record_lines.push_back(record_line);
  }
  if (records.empty()) throw ConfigError(SourceLocation{file, 1, 1}, "", "the file is empty: expected a header row");
  t.columns = std::move(records.front());
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != t.columns.size()) {
      throw ConfigError(SourceLocation{file, record_lines[r], 1}, "",
                        fmt::format("this row has {} cells but the header has {} columns", records[r].size(),
                                    t.columns.size()));
    }
    t.rows.push_back(std::move(records[r]));
    t.lines.push_back(record_lines[r]);
  }
  return t;
}

ResultsTable read_results_table(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(SourceLocation{path, 0, 0}, "", "cannot read the results file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_results_table(ss.str(), path);
}

}  // namespace tessera::app::select
