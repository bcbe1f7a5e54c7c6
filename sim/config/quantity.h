#pragma once
// A config value of whatever dimension its unit says ("1.5 us", "64 GB/s", "4 MiB", "2.1 GHz",
// "0.85"), for code that handles values of any parameter alike: the parameter ranges that
// `--uncertainty` samples between (models/system/parameter_ranges.h).
#include <string>
#include <string_view>

namespace tessera::sim::config {

enum class Dimension { kTime, kBandwidth, kFrequency, kBytes, kNumber };

// "a time", "a bandwidth", ...: for messages.
std::string_view dimension_name(Dimension dimension);

struct Quantity {
  Dimension dimension = Dimension::kNumber;
  // In the base unit: picoseconds, bytes per second, hertz, bytes, or the plain number.
  double value = 0;
};

// Reads a value with any of the units of sim/config/units.h, or a plain number ("0.85", "85%").
// Throws UnitError when the text is none of them.
Quantity parse_quantity(std::string_view text);

// The value in the unit its dimension is written in, exact as units.h formats it. Times and
// sizes are rounded to whole picoseconds and bytes (the resolution the schema reads).
std::string format_quantity(const Quantity& quantity);

}  // namespace tessera::sim::config
