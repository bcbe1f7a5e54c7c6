#include "workloads/replay/trace_workload.h"

namespace tessera::workloads::replay {

const sim::config::Schema<TraceWorkloadParams>& trace_workload_schema() {
  static const sim::config::Schema<TraceWorkloadParams> s =
      sim::config::Schema<TraceWorkloadParams>("trace", "a tile-level trace file (JSON Lines or binary)")
          .string("path", &TraceWorkloadParams::path,
                  "the trace file, JSON Lines or binary (told apart by content, docs/trace-format.md); a relative path "
                  "starts at the folder of the config file that names it (at the working folder when given by "
                  "--set or in an embedded config)")
          .required();
  return s;
}

}  // namespace tessera::workloads::replay
