#pragma once
// The size of a microbenchmark, checked before its machine is built (the config reader and
// run_microbench both call it): what one GPU must hold against its HBM, the memory accesses and
// atomics in all and the bytes moved against workloads/workload_limits.h, and the kernels of
// launch_latency, which are all enqueued (each with its record) before the run starts.
#include <cstdint>
#include <optional>

#include "models/system/system_spec.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::workloads::microbench {

// launch_latency enqueues `iterations` kernels up front, a few hundred bytes of records each.
inline constexpr std::uint64_t kMaxLaunches = std::uint64_t{1} << 20;

// Bytes one GPU holds for the op: source and destination of hbm_stream, the working set of
// l2_bandwidth, the (n - 1) receive slots of all_store, `bytes` for the others that move data.
std::uint64_t footprint_bytes_per_gpu(const MicrobenchParams& params, std::uint32_t num_gpus);

// The first size beyond its limit, named by the key to change, or nullopt. Assumes
// check_against_system passed (the GPUs exist).
std::optional<ParamProblem> size_problem(const MicrobenchParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::microbench
