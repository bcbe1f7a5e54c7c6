#include "sim/app/report/charts/scale.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/time_unit.h"

namespace tessera::app::report::charts {
namespace {

// log10 of a power of ten may land a hair off the integer: a tolerance keeps 1000 in decade 3.
constexpr double kDecadeTolerance = 1e-9;

int decade_at_or_below(double v) { return static_cast<int>(std::floor(std::log10(v) + kDecadeTolerance)); }
int decade_at_or_above(double v) { return static_cast<int>(std::ceil(std::log10(v) - kDecadeTolerance)); }

// A number as short as it reads: "0.2", "1", "12.5" (at most three decimals).
std::string short_number(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

}  // namespace

Scale Scale::linear(double max_value, int target_ticks, bool round_up) {
  if (!(max_value > 0) || !std::isfinite(max_value)) max_value = 1.0;
  target_ticks = std::max(target_ticks, 1);
  const double raw = max_value / target_ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double step = (norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0) * magnitude;
  const double upper = round_up ? std::ceil(max_value / step * (1 - 1e-12)) * step : max_value;
  return Scale(ScaleKind::kLinear, 0.0, upper, step);
}

Scale Scale::logarithmic(double min_positive, double max_value) {
  if (!(max_value > 0) || !std::isfinite(max_value)) max_value = 1.0;
  if (!(min_positive > 0) || min_positive > max_value) min_positive = max_value;
  const double lower = std::pow(10.0, decade_at_or_below(min_positive) - 1);
  const double upper = std::pow(10.0, decade_at_or_above(max_value));
  return Scale(ScaleKind::kLog, lower, std::max(upper, lower * 10), 0.0);
}

Scale Scale::log_decades(double min_positive, double max_value) {
  if (!(max_value > 0) || !std::isfinite(max_value)) max_value = 1.0;
  if (!(min_positive > 0) || min_positive > max_value) min_positive = max_value;
  const double lower = std::pow(10.0, decade_at_or_below(min_positive));
  const double upper = std::pow(10.0, decade_at_or_above(max_value));
  return Scale(ScaleKind::kLog, lower, std::max(upper, lower * 10), 0.0);
}

Scale Scale::automatic(std::span<const double> values, int target_ticks, bool round_up) {
  double lo = 0.0;
  double hi = 0.0;
  for (const double v : values) {
    if (!(v > 0) || !std::isfinite(v)) continue;
    lo = lo > 0 ? std::min(lo, v) : v;
    hi = std::max(hi, v);
  }
  if (lo > 0 && hi / lo > kAutoLogRatio) return logarithmic(lo, hi);
  return linear(hi, target_ticks, round_up);
}

double Scale::fraction(double value) const {
  if (std::isnan(value)) return 0.0;
  if (kind_ == ScaleKind::kLinear) return std::clamp((value - lower_) / (upper_ - lower_), 0.0, 1.0);
  if (!(value > lower_)) return 0.0;
  return std::clamp(std::log10(value / lower_) / std::log10(upper_ / lower_), 0.0, 1.0);
}

std::vector<AxisTick> Scale::time_ticks() const {
  std::vector<AxisTick> ticks;
  if (kind_ == ScaleKind::kLog) {
    for (int e = decade_at_or_below(lower_); e <= decade_at_or_above(upper_); ++e) {
      const double v = std::pow(10.0, e);
      const TimeUnit unit = natural_time_unit(v);
      ticks.push_back({v, fmt::format("{} {}", short_number(v / ns_per_unit(unit)), unit_symbol(unit))});
    }
    return ticks;
  }
  const TimeUnit unit = natural_time_unit(upper_);
  for (int k = 0;; ++k) {
    const double v = step_ * k;
    if (v > upper_ * (1 + 1e-9)) break;
    ticks.push_back({v, fmt::format("{} {}", short_number(v / ns_per_unit(unit)), unit_symbol(unit))});
  }
  return ticks;
}

std::string axis_title(std::string_view quantity, const Scale& scale) {
  return scale.is_log() ? fmt::format("{} (log scale)", quantity) : std::string(quantity);
}

}  // namespace tessera::app::report::charts
