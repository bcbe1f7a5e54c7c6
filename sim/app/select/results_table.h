#pragma once
// A results CSV as `tessera select` reads it (a sweep's results.csv, docs/sweeps.md): the header's
// columns and every row's cells, with the line each came from, so that errors name it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tessera::app::select {

struct ResultsTable {
  std::string file;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // one cell per column
  std::vector<int> lines;                      // rows[i] was written on line lines[i]

  // The column named `name`, or the one whose key path ends in ".name" when exactly one does
  // ("variant" -> "workload.variant"); nullopt otherwise.
  std::optional<std::size_t> column(const std::string& name) const;
};

// Parses CSV text (RFC 4180 quoting: quoted cells may hold commas, doubled quotes and line breaks).
// Throws config::ConfigError naming the file and line: no header, a row whose cell count differs
// from the header's, an unterminated quote.
ResultsTable parse_results_table(const std::string& text, const std::string& file);

// Reads and parses the file; a missing or unreadable file is a ConfigError too.
ResultsTable read_results_table(const std::string& path);

}  // namespace tessera::app::select
