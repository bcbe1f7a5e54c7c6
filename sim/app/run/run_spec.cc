#include "sim/app/run/run_spec.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/system/parameter_ranges.h"
#include "sim/config/config_error.h"
#include "sim/config/schema.h"
#include "sim/config/suggest.h"
#include "workloads/workload_kinds.h"

namespace tessera::app::run {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;
using sim::config::Schema;

// The workload's kind, from the registry; an unknown name is an error with the nearest kind.
const workloads::WorkloadKind& read_kind(const ConfigNode& workload) {
  std::vector<std::string> names;
  for (const workloads::WorkloadKind& k : workloads::workload_kinds()) names.push_back(k.name);
  const ConfigNode* kind = workload.find("kind");
  if (kind == nullptr) {
    throw ConfigError(workload, fmt::format("missing required key 'kind' (one of: {})", fmt::join(names, ", ")));
  }
  const std::string& name = kind->scalar();
  if (const workloads::WorkloadKind* found = workloads::find_workload_kind(name)) return *found;
  const auto near = sim::config::nearest(name, names);
  throw ConfigError(*kind, near ? fmt::format("unknown workload kind '{}'; did you mean '{}'?", name, *near)
                                : fmt::format("unknown workload kind '{}' (kinds: {})", name, fmt::join(names, ", ")));
}

}  // namespace

const Schema<RunOptions>& run_options_schema() {
  static const Schema<RunOptions> s =
      Schema<RunOptions>("run", "a run of one workload on one system")
          .count("seed", &RunOptions::seed, "seed of every random draw in the run (`tessera run --seed` overrides)")
          .count("max_events", &RunOptions::max_events,
                 "stop after this many events; the result is marked incomplete (`tessera run --max-events` "
                 "overrides)")
          .min(1);
  return s;
}

RunSpec read_run_spec(const ConfigNode& root) {
  if (!root.is_map()) throw ConfigError(root, fmt::format("expected a run config map, got {}", root.kind_name()));
  RunSpec spec;
  run_options_schema().read_into(root, spec.options, {.extra_keys = {"system", "workload"}});
  spec.system = models::system_schema().read(root.at("system"), {.extra_keys = {"base", "include", "uncertainty"}});
  spec.parameter_ranges = models::read_parameter_ranges(root.at("system"), spec.system);
  const ConfigNode& workload = root.at("workload");
  if (!workload.is_map()) throw ConfigError(workload, fmt::format("expected a workload map, got {}", workload.kind_name()));
  spec.workload = read_kind(workload).read(workload, spec.system);
  return spec;
}

std::string describe_yaml(const RunSpec& spec) {
  std::string out = run_options_schema().to_yaml(spec.options);
  out += "system:\n" + models::system_schema().to_yaml(spec.system, 2);
  out += fmt::format("workload:\n  kind: {}\n", spec.workload.kind());
  out += spec.workload.to_yaml(2);
  return out;
}

nlohmann::json describe_json(const RunSpec& spec) {
  nlohmann::json j = run_options_schema().to_json(spec.options);
  j["system"] = models::system_schema().to_json(spec.system);
  nlohmann::json workload = spec.workload.to_json();
  workload["kind"] = spec.workload.kind();
  j["workload"] = std::move(workload);
  return j;
}

}  // namespace tessera::app::run
