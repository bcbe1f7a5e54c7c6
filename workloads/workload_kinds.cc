#include "workloads/workload_kinds.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "workloads/collectives/collective_kind.h"
#include "workloads/microbench/microbench_kind.h"
#include "workloads/patterns/pattern_kinds.h"
#include "workloads/phold/phold_kind.h"
#include "workloads/replay/replay_limits.h"
#include "workloads/replay/run_trace.h"
#include "workloads/replay/trace_kind.h"

namespace tessera::workloads {
namespace {

using patterns::PatternWorkload;

// A generated workload's sizes against the replay's limits (buffers within one GPU's HBM,
// workgroups, operations, bytes moved), reported at the config's `workload:` key before
// anything runs. The trace is generated for it (a compact description: milliseconds) and
// dropped. A generator's own refusal of a combination of parameters (or any other failure to
// generate) is left to the run, which reports it as before (in a sweep it fails that point only).
void check_generated_sizes(const PatternWorkload& generated, const models::SystemSpec& system,
                           const sim::config::ConfigNode& workload) {
  std::optional<trace::Trace> trace;
  try {
    trace = generated.make_trace(system);
  } catch (const std::exception&) {
    return;
  }
  if (auto problem = replay::limits_problem(*trace, system)) {
    throw sim::config::ConfigError(workload, fmt::format("{} is too large: {}", generated.kind(), *problem));
  }
}

// A generator's workload runs as the replay of the trace it generates.
const Workload::Behaviour<PatternWorkload> kGenerated{
    .to_yaml = [](const PatternWorkload& p, int indent) { return p.to_yaml(indent); },
    .to_json = [](const PatternWorkload& p) { return p.to_json(); },
    .trace = [](const PatternWorkload& p, const models::SystemSpec& system) -> std::optional<trace::Trace> {
      return p.make_trace(system);
    },
    .run = [](const PatternWorkload& p, const models::SystemSpec& system, const RunContext& context) {
      return replay::run_trace(p.make_trace(system), system, context);
    },
};

WorkloadKind generated_kind(const patterns::PatternKind& pattern) {
  auto read = [&pattern](const sim::config::ConfigNode& workload, const models::SystemSpec& system) {
    PatternWorkload generated = pattern.read(workload, system);
    check_generated_sizes(generated, system, workload);
    return Workload(pattern.name, std::move(generated), kGenerated);
  };
  return WorkloadKind{pattern.name, pattern.summary, std::move(read), pattern.schema_json};
}

}  // namespace

const std::vector<WorkloadKind>& workload_kinds() {
  static const std::vector<WorkloadKind> kinds = [] {
    std::vector<WorkloadKind> k{microbench::microbench_kind(), phold::phold_kind(), replay::trace_kind()};
    for (const patterns::PatternKind& pattern : patterns::pattern_kinds()) k.push_back(generated_kind(pattern));
    k.push_back(collectives::collective_kind());
    return k;
  }();
  return kinds;
}

const WorkloadKind* find_workload_kind(std::string_view name) {
  for (const WorkloadKind& kind : workload_kinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

}  // namespace tessera::workloads
