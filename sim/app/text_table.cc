#include "sim/app/text_table.h"

#include <algorithm>
#include <cctype>

namespace tessera::app {
namespace {

// The columns a cell takes on a terminal: its UTF-8 code points ("µs" is two, not three bytes'
// worth). Wide characters (CJK) would take two; no output of the program has any.
std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool looks_numeric(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+');
}

}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> width(header_.size(), 0);
  for (std::size_t c = 0; c < header_.size(); ++c) width[c] = display_width(header_[c]);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& row, bool header) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const std::string pad(width[c] - display_width(cell), ' ');
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
