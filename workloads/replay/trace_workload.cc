#include "workloads/replay/trace_workload.h"

namespace tessera::workloads::replay {

const sim::config::Schema<TraceWorkloadParams>& trace_workload_schema() {
  static const sim::config::Schema<TraceWorkloadParams> s =
      sim::config::Schema<TraceWorkloadParams>("trace", "a tile-level trace file (JSON Lines or binary)")
          .string("path", &TraceWorkloadParams::path, "the trace file; relative paths start at the run config's folder")
          .required();
  return s;
}

}  // namespace tessera::workloads::replay
