#include "sim/app/time_unit.h"

#include <cmath>

#include <fmt/format.h>

namespace tessera::app {
namespace {

// Rounding may carry a value into the next power of ten ("9999.9996" prints as "10000.000"),
// so thresholds are compared after rounding to the printed decimals.
constexpr int kTableDecimals = 3;

double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

}  // namespace

TimeUnit pick_time_unit(double max_abs_ns) {
  const double v = std::fabs(max_abs_ns);
  if (!std::isfinite(v)) return TimeUnit::kS;
  for (const TimeUnit unit : {TimeUnit::kNs, TimeUnit::kUs, TimeUnit::kMs}) {
    if (rounded(v / ns_per_unit(unit), kTableDecimals) < 1e4) return unit;
  }
  return TimeUnit::kS;
}

TimeUnit natural_time_unit(double ns) {
  const double v = std::fabs(ns);
  if (!std::isfinite(v)) return TimeUnit::kS;
  for (const TimeUnit unit : {TimeUnit::kS, TimeUnit::kMs, TimeUnit::kUs}) {
    if (rounded(v / ns_per_unit(unit), kTableDecimals) >= 1.0) return unit;
  }
  return TimeUnit::kNs;
}

double ns_per_unit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kNs: return 1.0;
    case TimeUnit::kUs: return 1e3;
    case TimeUnit::kMs: return 1e6;
    case TimeUnit::kS: return 1e9;
  }
  return 1.0;
}

std::string_view unit_symbol(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kNs: return "ns";
    case TimeUnit::kUs: return "us";
    case TimeUnit::kMs: return "ms";
    case TimeUnit::kS: return "s";
  }
  return "ns";
}

std::string format_time(double ns, TimeUnit unit, int decimals) {
  std::string s = fmt::format("{:.{}f}", ns / ns_per_unit(unit), decimals);
  // A tiny negative value rounds to "-0.000", which reads as a sign error.
  if (s.starts_with('-') && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string format_time_change(double ns, TimeUnit unit, int decimals) {
  std::string s = format_time(ns, unit, decimals);
  return s.starts_with('-') ? s : "+" + s;
}

std::string format_duration(double ns, int decimals) {
  const TimeUnit unit = natural_time_unit(ns);
  return fmt::format("{} {}", format_time(ns, unit, decimals), unit_symbol(unit));
}

std::string with_unit(std::string_view name, TimeUnit unit) { return fmt::format("{} ({})", name, unit_symbol(unit)); }

}  // namespace tessera::app
