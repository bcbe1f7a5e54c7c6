#pragma once
// Draws a system's uncertain parameters (models/system/parameter_ranges.h) for one sample of
// `tessera run --uncertainty N`: each parameter uniformly in its range, as --set overrides.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/system/parameter_ranges.h"
#include "sim/config/config_node.h"

namespace tessera::app::uncertainty {

// The ranges that are sampled: those that hold the system's value (the others describe a value
// the file or a --set replaced; they are reported as held).
std::vector<models::ParameterRange> sampled_ranges(const std::vector<models::ParameterRange>& ranges);

// "system.KEY.PATH=VALUE" for every sampled range. The draw of a parameter depends only on the
// seed, the sample's index and the parameter's key path (not on the other ranges or on the
// thread that asks), so adding a range leaves the others' draws as they were.
std::vector<std::string> sample_overrides(const std::vector<models::ParameterRange>& ranges, std::uint64_t seed,
                                          std::size_t sample);

// Checks that both bounds of every range are values the system accepts (a bound of 1.2 for an
// efficiency is refused like the value would be), by reading the system with each bound in
// place. Throws sim::config::ConfigError at the bound.
void check_range_bounds(const sim::config::ConfigNode& system, const std::vector<models::ParameterRange>& ranges);

}  // namespace tessera::app::uncertainty
