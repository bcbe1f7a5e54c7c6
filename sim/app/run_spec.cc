#include "sim/app/run_spec.h"

#include <filesystem>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "bench/phold/phold_schema.h"
#include "sim/config/config_error.h"
#include "sim/config/schema.h"
#include "sim/config/suggest.h"
#include "workloads/microbench/microbench_limits.h"
#include "workloads/microbench/microbench_schema.h"
#include "workloads/replay/replay_limits.h"
#include "workloads/patterns/pattern_kinds.h"

namespace tessera::app {
namespace {

using sim::config::ConfigError;
using sim::config::ConfigNode;
using sim::config::Schema;

const Schema<RunOptions>& options_schema() {
  static const Schema<RunOptions> s =
      Schema<RunOptions>("run", "a run of one workload on one system")
          .count("seed", &RunOptions::seed, "seed of every random draw in the run")
          .count("max_events", &RunOptions::max_events, "stop after this many events (result marked incomplete)")
          .min(1);
  return s;
}

std::string read_kind(const ConfigNode& workload) {
  const ConfigNode* kind = workload.find("kind");
  if (kind == nullptr) {
    throw ConfigError(workload, fmt::format("missing required key 'kind' (one of: {})", fmt::join(workload_kinds(), ", ")));
  }
  const std::string& name = kind->scalar();
  for (const std::string& k : workload_kinds()) {
    if (k == name) return name;
  }
  const auto near = sim::config::nearest(name, workload_kinds());
  throw ConfigError(*kind, near ? fmt::format("unknown workload kind '{}'; did you mean '{}'?", name, *near)
                                : fmt::format("unknown workload kind '{}' (kinds: {})", name,
                                              fmt::join(workload_kinds(), ", ")));
}

// The schema of each workload alternative, for describe.
const auto& workload_schema(const bench::PholdParams&) { return bench::phold_schema(); }
const auto& workload_schema(const workloads::microbench::MicrobenchParams&) {
  return workloads::microbench::microbench_schema();
}
const auto& workload_schema(const workloads::replay::TraceWorkloadParams&) {
  return workloads::replay::trace_workload_schema();
}

template <class Params>
std::string workload_yaml(const Params& p) { return workload_schema(p).to_yaml(p, 2); }
std::string workload_yaml(const workloads::patterns::PatternWorkload& p) { return p.to_yaml(2); }
template <class Params>
nlohmann::json workload_json(const Params& p) { return workload_schema(p).to_json(p); }
nlohmann::json workload_json(const workloads::patterns::PatternWorkload& p) { return p.to_json(); }

// A relative trace path starts at the folder of the file that names it; one given by --set or
// in an embedded config starts at the working folder.
std::string resolve_trace_path(const ConfigNode& path_node, const std::string& path) {
  const std::filesystem::path p(path);
  const std::string& file = path_node.location().file;
  if (p.is_absolute() || file.empty() || file.starts_with("embedded:") || file.starts_with("--set")) return path;
  return (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
}

// A generated workload's sizes against the replay's limits (buffers within one GPU's HBM,
// workgroups, operations, bytes moved), reported at the config's `workload:` key before
// anything runs. The trace is generated for it (a compact description: milliseconds) and
// dropped. A generator's own refusal of a combination of parameters (or any other failure to
// generate) is left to the run, which reports it as before (in a sweep it fails that point only).
void check_generated_sizes(const workloads::patterns::PatternWorkload& generated, const models::SystemSpec& system,
                           const ConfigNode& workload) {
  std::optional<workloads::trace::Trace> trace;
  try {
    trace = generated.make_trace(system);
  } catch (const std::exception&) {
    return;
  }
  if (auto problem = workloads::replay::limits_problem(*trace, system)) {
    throw ConfigError(workload, fmt::format("{} is too large: {}", generated.kind(), *problem));
  }
}

}  // namespace

const std::vector<std::string>& workload_kinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> k{"microbench", "phold", "trace"};
    for (const auto& pattern : workloads::patterns::pattern_kinds()) k.push_back(pattern.name);
    return k;
  }();
  return kinds;
}

RunSpec read_run_spec(const ConfigNode& root) {
  if (!root.is_map()) throw ConfigError(root, fmt::format("expected a run config map, got {}", root.kind_name()));
  RunSpec spec;
  options_schema().read_into(root, spec.options, {.extra_keys = {"system", "workload"}});
  spec.system = models::system_schema().read(root.at("system"), {.extra_keys = {"base", "include"}});
  const ConfigNode& workload = root.at("workload");
  if (!workload.is_map()) throw ConfigError(workload, fmt::format("expected a workload map, got {}", workload.kind_name()));
  spec.workload_kind = read_kind(workload);
  if (spec.workload_kind == "phold") {
    bench::PholdParams phold = bench::phold_schema().read(workload, {.extra_keys = {"kind"}});
    phold.seed = spec.options.seed;
    spec.workload = phold;
  } else if (spec.workload_kind == "trace") {
    auto params = workloads::replay::trace_workload_schema().read(workload, {.extra_keys = {"kind"}});
    params.path = resolve_trace_path(workload.at("path"), params.path);
    spec.workload = params;
  } else if (const auto* pattern = workloads::patterns::find_pattern_kind(spec.workload_kind)) {
    workloads::patterns::PatternWorkload generated = pattern->read(workload, spec.system);
    check_generated_sizes(generated, spec.system, workload);
    spec.workload = std::move(generated);
  } else {
    namespace mb = workloads::microbench;
    const mb::MicrobenchParams params = mb::microbench_schema().read(workload, {.extra_keys = {"kind"}});
    auto problem = mb::check_against_system(params, spec.system.num_gpus);
    if (!problem) problem = mb::size_problem(params, spec.system);
    if (problem) {
      const ConfigNode* at = workload.find(problem->key);
      throw ConfigError(at != nullptr ? *at : workload, problem->message);
    }
    spec.workload = params;
  }
  return spec;
}

std::string describe_yaml(const RunSpec& spec) {
  std::string out = options_schema().to_yaml(spec.options);
  out += "system:\n" + models::system_schema().to_yaml(spec.system, 2);
  out += fmt::format("workload:\n  kind: {}\n", spec.workload_kind);
  out += std::visit([](const auto& w) { return workload_yaml(w); }, spec.workload);
  return out;
}

nlohmann::json describe_json(const RunSpec& spec) {
  nlohmann::json j = options_schema().to_json(spec.options);
  j["system"] = models::system_schema().to_json(spec.system);
  nlohmann::json workload = std::visit([](const auto& w) { return workload_json(w); }, spec.workload);
  workload["kind"] = spec.workload_kind;
  j["workload"] = std::move(workload);
  return j;
}

}  // namespace tessera::app
