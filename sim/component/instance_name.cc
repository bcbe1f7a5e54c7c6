#include "sim/component/instance_name.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessera::sim {
namespace {

bool is_lower_ident_start(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }
bool is_lower_ident(char c) { return is_lower_ident_start(c) || (c >= '0' && c <= '9'); }

bool is_valid_segment(std::string_view seg) {
  if (seg.empty() || !is_lower_ident_start(seg.front())) return false;
  std::size_t i = 1;
  while (i < seg.size() && is_lower_ident(seg[i])) ++i;
  if (i == seg.size()) return true;
  if (seg[i] != '[' || seg.back() != ']' || i + 2 >= seg.size()) return false;
  for (std::size_t j = i + 1; j + 1 < seg.size(); ++j) {
    if (seg[j] < '0' || seg[j] > '9') return false;
  }
  return true;
}

std::string checked(std::string name) {
  if (!is_valid_instance_name(name)) throw std::invalid_argument(fmt::format("invalid instance name '{}'", name));
  return name;
}

}  // namespace

bool is_valid_instance_name(std::string_view name) {
  if (name.empty()) return false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = name.find('.', start);
    const std::string_view seg = name.substr(start, dot == std::string_view::npos ? name.npos : dot - start);
    if (!is_valid_segment(seg)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string child_name(std::string_view parent, std::string_view child) {
  return checked(parent.empty() ? std::string(child) : fmt::format("{}.{}", parent, child));
}

std::string child_name(std::string_view parent, std::string_view child, std::size_t index) {
  return checked(parent.empty() ? fmt::format("{}[{}]", child, index) : fmt::format("{}.{}[{}]", parent, child, index));
}

}  // namespace tessera::sim
