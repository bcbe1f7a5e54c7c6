#include "sim/config/quantity.h"

#include <cmath>
#include <cstdint>

#include "sim/config/units.h"

namespace tessera::sim::config {

std::string_view dimension_name(Dimension dimension) {
  switch (dimension) {
    case Dimension::kTime: return "a time";
    case Dimension::kBandwidth: return "a bandwidth";
    case Dimension::kFrequency: return "a frequency";
    case Dimension::kBytes: return "a size";
    case Dimension::kNumber: return "a plain number";
  }
  return "a value";
}

Quantity parse_quantity(std::string_view text) {
  // Each parser refuses the others' units, so the order only decides which error is kept.
  try {
    return {Dimension::kTime, static_cast<double>(parse_time_ps(text))};
  } catch (const UnitError&) {
  }
  try {
    return {Dimension::kBandwidth, parse_bandwidth_bytes_per_s(text)};
  } catch (const UnitError&) {
  }
  try {
    return {Dimension::kFrequency, parse_frequency_hz(text)};
  } catch (const UnitError&) {
  }
  try {
    return {Dimension::kBytes, static_cast<double>(parse_bytes(text))};
  } catch (const UnitError&) {
  }
  try {
    if (!text.empty() && text.back() == '%') return {Dimension::kNumber, parse_fraction(text)};
    return {Dimension::kNumber, parse_real(text)};
  } catch (const UnitError&) {
  }
  throw UnitError("expected a number, with its unit where it has one (e.g. 1.5 us, 64 GB/s, 4 MiB, 2.1 GHz, 0.85), got \"" +
                  std::string(text) + "\"");
}

std::string format_quantity(const Quantity& quantity) {
  switch (quantity.dimension) {
    case Dimension::kTime: return format_time_ps(static_cast<Tick>(std::llround(quantity.value)));
    case Dimension::kBandwidth: return format_bandwidth(quantity.value);
    case Dimension::kFrequency: return format_frequency_hz(quantity.value);
    case Dimension::kBytes: return format_bytes(static_cast<std::uint64_t>(std::llround(quantity.value)));
    case Dimension::kNumber: return format_real(quantity.value);
  }
  return format_real(quantity.value);
}

}  // namespace tessera::sim::config
