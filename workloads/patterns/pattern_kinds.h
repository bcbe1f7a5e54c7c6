#pragma once
// The generated workload kinds a run config may name (`workload: {kind: ag_gemm, ...}`), each
// with the reader of its keys and their schema. Adding a generator means adding one entry in
// pattern_kinds.cc.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/system_spec.h"
#include "sim/config/config_node.h"
#include "workloads/patterns/pattern_workload.h"

namespace tessera::workloads::patterns {

struct PatternKind {
  std::string name;
  std::string summary;  // one line, for help texts
  // Reads the workload map (its `kind` key excepted) and checks it against the system;
  // throws config::ConfigError naming the file, line and key.
  std::function<PatternWorkload(const sim::config::ConfigNode& workload, const models::SystemSpec& system)> read;
  // The generator's parameters as Schema::schema_json gives them (`tessera describe --schema`).
  std::function<nlohmann::json()> schema_json;
};

const std::vector<PatternKind>& pattern_kinds();

// nullptr when `name` is no generated kind.
const PatternKind* find_pattern_kind(const std::string& name);

}  // namespace tessera::workloads::patterns
