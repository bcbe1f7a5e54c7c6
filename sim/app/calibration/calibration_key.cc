#include "sim/app/calibration/calibration_key.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/config/units.h"

namespace tessera::app::calibration {
namespace {

using models::SystemSpec;

sim::Tick to_ps(double value) { return static_cast<sim::Tick>(std::llround(std::max(0.0, value))); }
double to_bandwidth(double value) { return std::max(1.0, value); }
double to_fraction(double value) { return std::clamp(value, 0.0, 1.0); }

// Six significant digits: far below any measurement's noise, and short to read.
double round_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double magnitude = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(value)))));
  return std::round(value * magnitude) / magnitude;
}

#define TESSERA_TIME_KEY(PATH, FIELD)                                                   \
  CalibrationKey {                                                                      \
    PATH, KeyUnit::kTime, [](const SystemSpec& s) { return static_cast<double>(s.FIELD); }, \
        [](SystemSpec& s, double v) { s.FIELD = to_ps(v); }                             \
  }
#define TESSERA_BANDWIDTH_KEY(PATH, FIELD)                                           \
  CalibrationKey {                                                                   \
    PATH, KeyUnit::kBandwidth, [](const SystemSpec& s) { return s.FIELD; },          \
        [](SystemSpec& s, double v) { s.FIELD = to_bandwidth(round_significant(v, 6)); } \
  }
#define TESSERA_FRACTION_KEY(PATH, FIELD)                                             \
  CalibrationKey {                                                                    \
    PATH, KeyUnit::kFraction, [](const SystemSpec& s) { return s.FIELD; },            \
        [](SystemSpec& s, double v) { s.FIELD = to_fraction(std::round(v * 1e4) / 1e4); } \
  }

}  // namespace

const std::vector<CalibrationKey>& calibration_keys() {
  static const std::vector<CalibrationKey> keys{
      TESSERA_TIME_KEY("gpu.dispatch.kernel_launch_latency", gpu.dispatch.kernel_launch_latency_ps),
      TESSERA_TIME_KEY("gpu.dispatch.workgroup_dispatch", gpu.dispatch.workgroup_dispatch_ps),
      TESSERA_TIME_KEY("gpu.dispatch.kernel_teardown", gpu.dispatch.kernel_teardown_ps),
      TESSERA_BANDWIDTH_KEY("gpu.memory.hbm_bandwidth", gpu.memory.hbm_bandwidth_bytes_per_s),
      TESSERA_TIME_KEY("gpu.memory.hbm_latency", gpu.memory.hbm_latency_ps),
      TESSERA_BANDWIDTH_KEY("gpu.memory.l2.bandwidth", gpu.memory.l2.bandwidth_bytes_per_s),
      TESSERA_TIME_KEY("gpu.memory.l2.hit_latency", gpu.memory.l2.hit_latency_ps),
      TESSERA_BANDWIDTH_KEY("interconnect.link_bandwidth", interconnect.link_bandwidth_bytes_per_s),
      TESSERA_TIME_KEY("interconnect.link_latency", interconnect.link_latency_ps),
      TESSERA_TIME_KEY("gpu.atomics.local_latency", gpu.atomics.local_latency_ps),
      TESSERA_TIME_KEY("gpu.atomics.remote_latency", gpu.atomics.remote_latency_ps),
      TESSERA_TIME_KEY("gpu.atomics.poll_interval", gpu.atomics.poll_interval_ps),
      TESSERA_FRACTION_KEY("gpu.compute.matrix_efficiency.fp16", gpu.compute.matrix_efficiency.fp16),
      TESSERA_FRACTION_KEY("gpu.compute.matrix_efficiency.bf16", gpu.compute.matrix_efficiency.bf16),
      TESSERA_FRACTION_KEY("gpu.compute.matrix_efficiency.fp8", gpu.compute.matrix_efficiency.fp8),
      TESSERA_FRACTION_KEY("gpu.compute.matrix_efficiency.fp32", gpu.compute.matrix_efficiency.fp32),
      TESSERA_TIME_KEY("host.collective_call", host.collective_call_ps),
      TESSERA_TIME_KEY("gpu.collective_library.ll_kernel_overhead", gpu.collective_library.ll_kernel_overhead_ps),
      TESSERA_TIME_KEY("gpu.collective_library.ll128_kernel_overhead", gpu.collective_library.ll128_kernel_overhead_ps),
      TESSERA_TIME_KEY("gpu.collective_library.simple_kernel_overhead", gpu.collective_library.simple_kernel_overhead_ps),
  };
  return keys;
}

#undef TESSERA_TIME_KEY
#undef TESSERA_BANDWIDTH_KEY
#undef TESSERA_FRACTION_KEY

const CalibrationKey* find_calibration_key(std::string_view path) {
  for (const CalibrationKey& k : calibration_keys()) {
    if (k.path == path) return &k;
  }
  return nullptr;
}

const CalibrationKey& calibration_key(std::string_view path) {
  if (const CalibrationKey* k = find_calibration_key(path)) return *k;
  throw std::logic_error(fmt::format("calibration has no key '{}'", path));
}

std::string value_text(const CalibrationKey& key, double value) {
  models::SystemSpec probe;  // the text of what `set` would store
  key.set(probe, value);
  const double stored = key.get(probe);
  switch (key.unit) {
    case KeyUnit::kTime: return sim::config::format_time_ps(static_cast<sim::Tick>(stored));
    case KeyUnit::kBandwidth: return sim::config::format_bandwidth(stored);
    case KeyUnit::kFraction: return sim::config::format_real(stored);
  }
  return "";
}

double to_linear_parameter(const CalibrationKey& key, double value) {
  switch (key.unit) {
    case KeyUnit::kTime: return value / 1e3;                   // ps -> ns
    case KeyUnit::kBandwidth: return 1e9 / std::max(1.0, value);  // B/s -> ns per byte
    case KeyUnit::kFraction: return value;
  }
  return value;
}

double from_linear_parameter(const CalibrationKey& key, double parameter) {
  switch (key.unit) {
    case KeyUnit::kTime: return parameter * 1e3;
    case KeyUnit::kBandwidth: return 1e9 / std::max(parameter, 1e-9);  // at most 1e18 B/s
    case KeyUnit::kFraction: return parameter;
  }
  return parameter;
}

}  // namespace tessera::app::calibration
