#pragma once
// The units a statistic may carry. Keeping them a closed set means every output column names one.
#include <string_view>

namespace tessera::sim::stats {

enum class Unit { kCount, kEvents, kBytes, kPs, kBytesPerS, kFrac };
std::string_view unit_suffix(Unit unit);  // "count", "events", "bytes", "ps", "bytes_per_s", "frac"

}  // namespace tessera::sim::stats
