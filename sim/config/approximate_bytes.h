#pragma once
// A size for a message a person reads, to three significant digits in the largest binary unit
// it fills ("96 TiB", "1.5 GiB"), where format_bytes would spell an exact but unreadable value
// ("100664312 MiB"). For limits and errors only: configs keep the exact form.
#include <array>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace tessera::sim::config {

inline std::string approximate_bytes(std::uint64_t bytes) {
  constexpr std::array<const char*, 7> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.3g} {}", value, kUnits[unit]);
}

}  // namespace tessera::sim::config
