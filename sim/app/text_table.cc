#include "sim/app/text_table.h"

#include <algorithm>
#include <cctype>

namespace tessera::app {
namespace {

bool looks_numeric(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+');
}

}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> width(header_.size(), 0);
  for (std::size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& row, bool header) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const std::string pad(width[c] - cell.size(), ' ');
      const bool right = !header && c > 0 && looks_numeric(cell);
      out += c == 0 ? "" : "  ";
      out += right ? pad + cell : cell + (c + 1 == width.size() ? "" : pad);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  };
  emit(header_, true);
  std::size_t total = 0;
  for (std::size_t w : width) total += w;
  out += std::string(total + 2 * (width.size() - 1), '-') + '\n';
  for (const auto& row : rows_) emit(row, false);
  return out;
}

}  // namespace tessera::app
