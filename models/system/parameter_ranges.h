#pragma once
// What a system file says it is unsure of: `uncertainty:` maps a parameter's key path to the
// range its sources span, [LOW, HIGH] in the parameter's own unit:
//
//   uncertainty:
//     gpu.memory.hbm_latency: [405 ns, 425 ns]          # spread of three pointer-chase studies
//     interconnect.link_bandwidth: [45.1 GB/s, 49.2 GB/s]
//     interconnect.link_latency: [200 ns, 1 us, estimate]  # no measurement: the value is an estimate
//
// (nested maps, gpu: {memory: {...}}, say the same). `tessera run --uncertainty N` draws each
// parameter uniformly from its range N times (docs/config-reference.md, "Uncertainty").
#include <vector>
#include <string>

#include "models/system/system_spec.h"
#include "sim/config/config_node.h"
#include "sim/config/quantity.h"
#include "sim/config/source_location.h"

namespace tessera::models {

struct ParameterRange {
  std::string key_path;              // below system:, "gpu.memory.hbm_latency"
  sim::config::Quantity low;
  sim::config::Quantity high;
  sim::config::Quantity nominal;     // the system's value of the parameter
  sim::config::SourceLocation location;  // where the range is written
  bool estimate = false;             // the value is an estimate, not a measurement (`tessera run` lists these)

  // A range that does not hold the system's value (a derived file or a --set moved it) is not
  // sampled: the value was chosen, and the range describes another one.
  bool holds_nominal() const { return low.value <= nominal.value && nominal.value <= high.value; }
};

// The ranges of a system map (its `uncertainty:` key; none when absent), in key-path order.
// Throws sim::config::ConfigError at the entry for a key that is not a numeric parameter of the
// system, a bound that is not a value of the parameter's dimension, or LOW > HIGH.
std::vector<ParameterRange> read_parameter_ranges(const sim::config::ConfigNode& system, const SystemSpec& spec);

// Reads a system map (base:, include: and uncertainty: besides the schema's keys), its ranges
// checked: what every reader of a system file calls.
SystemSpec read_system(const sim::config::ConfigNode& system);

// The key paths of the estimates whose range holds the system's value (a value a --set replaced is
// the user's, not the file's estimate), in key-path order.
std::vector<std::string> estimated_keys(const std::vector<ParameterRange>& ranges);

}  // namespace tessera::models
