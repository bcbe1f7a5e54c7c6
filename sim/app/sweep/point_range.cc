#include "sim/app/sweep/point_range.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "sim/app/usage_error.h"

namespace tessera::app::sweep {
namespace {

std::size_t parse_bound(std::string_view s, std::size_t if_empty, const std::string& text) {
  if (s.empty()) return if_empty;
  std::size_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) {
    throw UsageError(fmt::format("--points {}: expected A:B with whole numbers (points A to B-1)", text));
  }
  return v;
}

}  // namespace

PointRange parse_point_range(const std::string& text, std::size_t num_points) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw UsageError(fmt::format("--points {}: expected A:B (points A to B-1), A: or :B", text));
  }
  const std::string_view s(text);
  PointRange r;
  r.whole = false;
  r.begin = parse_bound(s.substr(0, colon), 0, text);
  r.end = std::min(parse_bound(s.substr(colon + 1), num_points, text), num_points);
  if (r.begin >= r.end) {
    throw UsageError(fmt::format("--points {}: selects no point (the study has points 0 to {})", text, num_points - 1));
  }
  return r;
}

}  // namespace tessera::app::sweep
