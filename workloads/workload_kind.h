#pragma once
// One entry of the registry of workload kinds (workloads/workload_kinds.h): a name a run config
// may give as `workload: {kind: NAME, ...}`, a one-line summary for help texts, and the reader
// that turns the workload map into a Workload, checked against the system it will run on.
#include <functional>
#include <string>

#include "models/system/system_spec.h"
#include "sim/config/config_node.h"
#include "workloads/workload.h"

namespace tessera::workloads {

struct WorkloadKind {
  std::string name;
  std::string summary;
  // Reads the workload map (its `kind` key excepted) and checks it against the system; throws
  // sim::config::ConfigError naming the file, line and key.
  std::function<Workload(const sim::config::ConfigNode& workload, const models::SystemSpec& system)> read;
};

}  // namespace tessera::workloads
