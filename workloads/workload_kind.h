#pragma once
// One entry of the registry of workload kinds (workloads/workload_kinds.h): a name a run config
// may give as `workload: {kind: NAME, ...}`, a one-line summary for help texts, the reader
// that turns the workload map into a Workload, checked against the system it will run on, and
// the schema of the map's keys (`tessera describe --schema`, docs/config-reference.md).
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

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
  // Every key of the workload map but `kind`, as Schema::schema_json gives it: key, kind, unit,
  // default, range or choices, meaning.
  std::function<nlohmann::json()> schema_json;
};

}  // namespace tessera::workloads
