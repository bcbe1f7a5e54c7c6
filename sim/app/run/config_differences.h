#pragma once
// The keys in which two resolved run configs differ (every default filled in, values with units,
// as `tessera describe --json` prints them): what `tessera compare` names before it shows how
// the results moved, so that a comparison says what it compares.
#include <string>
#include <vector>

#include "sim/app/run/run_spec.h"

namespace tessera::app::run {

struct ConfigDifference {
  std::string key;     // the --set path: "system.interconnect.link_bandwidth", "workload.variant", "gpu...[2]"
  std::string a_text;  // the value in A, as describe prints it ("64 GB/s", "bsp"); "(absent)" when A lacks the key
  std::string b_text;
};

// In key order.
std::vector<ConfigDifference> config_differences(const RunSpec& a, const RunSpec& b);

}  // namespace tessera::app::run
