#pragma once
// An aligned text table for the terminal: a header row (names carry units), then rows.
// Numbers align right, text aligns left.
#include <string>
#include <vector>

namespace tessera::app {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tessera::app
