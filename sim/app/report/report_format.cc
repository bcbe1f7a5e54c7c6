#include "sim/app/report/report_format.h"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/time_unit.h"

namespace tessera::app::report {

std::string format_duration_ns(double ns) { return format_duration(ns); }

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (std::fabs(bytes) < 1024.0) return fmt::format("{:.0f} B", bytes);
  std::size_t unit = 0;
  while (std::fabs(bytes) >= 1024.0 && unit + 1 < kUnits.size()) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", bytes, kUnits[unit]);
}

std::string format_percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100.0); }

std::string format_coordinate(double px) {
  std::string s = fmt::format("{:.2f}", px);
  if (s == "-0.00") s = "0.00";
  return s;
}

}  // namespace tessera::app::report
