#pragma once
// The workload kind `trace`: a user's tile-level trace file (docs/trace-format.md), text or
// binary, replayed on the system of the run config.
#include <string>

#include "sim/config/schema.h"

namespace tessera::workloads::replay {

struct TraceWorkloadParams {
  std::string path;  // resolved against the run config's folder when relative
};

const sim::config::Schema<TraceWorkloadParams>& trace_workload_schema();

}  // namespace tessera::workloads::replay
