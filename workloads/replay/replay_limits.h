#pragma once
// What a trace may ask of the replay, checked before the machine is built or anything sized by
// the trace is allocated: its buffers must fit one GPU's HBM (as the replay lays them out, each
// aligned to 2 MiB), and its workgroups, operations and bytes moved must stay within the limits
// of workloads/workload_limits.h. The replay calls it on every trace; `tessera run` and `sweep`
// also call it on a generated workload's trace when they read its config, so that an absurd
// size is reported at the config's `workload:` key before anything runs.
#include <cstdint>
#include <optional>
#include <string>

#include "models/system/system_spec.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::replay {

// Bytes per rank the replay's address map needs for the buffers (each rounded up to 2 MiB);
// saturates at 2^64 - 1 instead of wrapping.
std::uint64_t laid_out_bytes_per_rank(const trace::Trace& trace);

// The first limit the trace exceeds, phrased for the user (the size, the limit, what to
// change), or nullopt. The trace must be valid (trace::validate).
std::optional<std::string> limits_problem(const trace::Trace& trace, const models::SystemSpec& system);

}  // namespace tessera::workloads::replay
