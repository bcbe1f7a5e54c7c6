#include "sim/app/report/report_format.h"

#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace tessera::app::report {

std::string format_duration_ns(double ns) {
  const double magnitude = std::fabs(ns);
  if (magnitude < 1e3) return fmt::format("{:.3f} ns", ns);
  if (magnitude < 1e6) return fmt::format("{:.3f} us", ns / 1e3);
  if (magnitude < 1e9) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

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

std::vector<AxisTick> time_axis_ticks(double max_ns, int target) {
  std::vector<AxisTick> ticks;
  if (!(max_ns > 0) || target < 1) return {{0.0, "0 ns"}};
  const double raw = max_ns / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double step = (norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0) * magnitude;
  const auto [divisor, unit] = max_ns < 1e3   ? std::pair{1.0, "ns"}
                               : max_ns < 1e6 ? std::pair{1e3, "us"}
                               : max_ns < 1e9 ? std::pair{1e6, "ms"}
                                              : std::pair{1e9, "s"};
  for (int k = 0;; ++k) {
    const double v = step * k;
    if (v > max_ns * (1 + 1e-9)) break;
    std::string number = fmt::format("{:.3f}", v / divisor);
    while (number.back() == '0') number.pop_back();
    if (number.back() == '.') number.pop_back();
    ticks.push_back({v, fmt::format("{} {}", number, unit)});
  }
  return ticks;
}

}  // namespace tessera::app::report
