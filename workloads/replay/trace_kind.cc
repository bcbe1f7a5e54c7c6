#include "workloads/replay/trace_kind.h"

#include <filesystem>

#include "workloads/replay/replay_error.h"
#include "workloads/replay/run_trace.h"
#include "workloads/replay/trace_workload.h"
#include "workloads/trace/trace_file.h"

namespace tessera::workloads::replay {
namespace {

// A relative trace path starts at the folder of the file that names it; one given by --set or
// in an embedded config starts at the working folder.
std::string resolve_trace_path(const sim::config::ConfigNode& path_node, const std::string& path) {
  const std::filesystem::path p(path);
  const std::string& file = path_node.location().file;
  if (p.is_absolute() || file.empty() || file.starts_with("embedded:") || file.starts_with("--set")) return path;
  return (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
}

const Workload::Behaviour<TraceWorkloadParams> kBehaviour{
    .to_yaml = [](const TraceWorkloadParams& p, int indent) { return trace_workload_schema().to_yaml(p, indent); },
    .to_json = [](const TraceWorkloadParams& p) { return trace_workload_schema().to_json(p); },
    .trace = [](const TraceWorkloadParams& p, const models::SystemSpec&) -> std::optional<trace::Trace> {
      return trace::load_trace(p.path);
    },
    .run = [](const TraceWorkloadParams& p, const models::SystemSpec& system, const RunContext& context) {
      const trace::Trace trace = trace::load_trace(p.path);
      try {
        return run_trace(trace, system, context);
      } catch (const ReplayError& e) {
        // What the trace asks that this system cannot run: name the file, as for a config error.
        throw ReplayError(p.path + ": " + e.what());
      }
    },
};

}  // namespace

WorkloadKind trace_kind() {
  return {"trace", "a tile-level trace file (JSON Lines or binary), replayed on the system",
          [](const sim::config::ConfigNode& workload, const models::SystemSpec&) {
            TraceWorkloadParams params = trace_workload_schema().read(workload, {.extra_keys = {"kind"}});
            params.path = resolve_trace_path(workload.at("path"), params.path);
            return Workload("trace", std::move(params), kBehaviour);
          },
          [] { return trace_workload_schema().schema_json(); }};
}

}  // namespace tessera::workloads::replay
