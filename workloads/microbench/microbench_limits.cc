#include "workloads/microbench/microbench_limits.h"

#include <fmt/format.h>

#include "sim/config/approximate_bytes.h"
#include "sim/config/units.h"
#include "workloads/workload_limits.h"

namespace tessera::workloads::microbench {
namespace {

// Products of counts and sizes, exact up to 2^128 and then capped: never wrapping.
__extension__ typedef unsigned __int128 Wide;

std::uint64_t capped(Wide v) { return v > Wide{~std::uint64_t{0}} ? ~std::uint64_t{0} : static_cast<std::uint64_t>(v); }

// What the op's streaming kernels do in all: the GPUs that stream, the segments each covers, the
// passes over them, and the accesses per chunk (a copy loads and stores each chunk).
struct StreamShape {
  std::uint64_t gpus = 0;
  std::uint64_t segments = 0;
  std::uint64_t passes = 0;
  std::uint64_t accesses_per_chunk = 0;
};

StreamShape stream_shape(const MicrobenchParams& p, std::uint32_t n) {
  switch (p.op) {
    case Op::kHbmStream: return {1, 1, 1, 2};
    case Op::kL2Bandwidth: return {1, 1, std::uint64_t{p.iterations} + 1, 1};  // the warm-up pass, then the timed ones
    case Op::kRemoteLoad:
    case Op::kRemoteStore: return {1, 1, 1, 1};
    case Op::kAllLoad:
    case Op::kAllStore: return {n, n - 1u, 1, 1};
    default: return {};
  }
}

// Memory accesses and atomics the op issues in all, and bytes moved.
struct Work {
  Wide operations = 0;
  Wide bytes = 0;
};

Work work_of(const MicrobenchParams& p, const models::SystemSpec& system) {
  const std::uint32_t n = system.num_gpus;
  const std::uint64_t workgroups =
      p.workgroups != 0 ? p.workgroups : is_bandwidth_op(p.op) ? models::total_compute_units(system.gpu) : 1;
  switch (p.op) {
    case Op::kAtomicAdd:
    case Op::kAtomicXchg: return {Wide{workgroups} * p.iterations, 0};
    case Op::kFlagPingpong: return {Wide{2} * p.iterations, 0};
    case Op::kLaunchLatency: return {Wide{workgroups} * p.iterations, 0};
    case Op::kP2pCopy: return {1, p.bytes};
    default: break;
  }
  const StreamShape s = stream_shape(p, n);
  const Wide chunks_per_segment = (p.bytes + p.chunk_bytes - 1) / p.chunk_bytes;
  const Wide per_pass = Wide{s.gpus} * s.segments * s.accesses_per_chunk;
  return {per_pass * chunks_per_segment * s.passes, per_pass * p.bytes * s.passes};
}

}  // namespace

std::uint64_t footprint_bytes_per_gpu(const MicrobenchParams& p, std::uint32_t num_gpus) {
  switch (p.op) {
    case Op::kHbmStream: return capped(Wide{2} * p.bytes);
    case Op::kAllStore: return capped(Wide{num_gpus - 1u} * p.bytes);
    case Op::kL2Bandwidth:
    case Op::kRemoteLoad:
    case Op::kRemoteStore:
    case Op::kAllLoad:
    case Op::kP2pCopy: return p.bytes;
    default: return 0;  // atomics, flags and empty kernels hold no buffer
  }
}

std::optional<ParamProblem> size_problem(const MicrobenchParams& p, const models::SystemSpec& system) {
  using sim::config::format_bytes;
  const std::uint64_t footprint = footprint_bytes_per_gpu(p, system.num_gpus);
  const std::uint64_t hbm = system.gpu.memory.hbm_capacity_bytes;
  if (footprint > hbm) {
    return ParamProblem{"bytes", fmt::format("{} needs {} on one GPU; a {} has {} of HBM", name_of(p.op),
                                             sim::config::approximate_bytes(footprint), system.gpu.model,
                                             format_bytes(hbm))};
  }
  if (p.op == Op::kLaunchLatency && p.iterations > kMaxLaunches) {
    return ParamProblem{"iterations", fmt::format("launch_latency enqueues {} kernels; at most {}", p.iterations,
                                                  kMaxLaunches)};
  }
  const Work w = work_of(p, system);
  // The key most likely mistaken: the repetitions, or (one pass of a stream) the chunk size.
  const bool repeated = !is_bandwidth_op(p.op) || p.op == Op::kL2Bandwidth;
  if (w.operations > kMaxOperations) {
    const bool stream = is_bandwidth_op(p.op);
    return ParamProblem{repeated ? "iterations" : "chunk",
                        fmt::format("{} would issue {:.3g} memory accesses or atomics; at most {:.0e}, more than a "
                                    "day of simulation{}",
                                    name_of(p.op), static_cast<double>(w.operations), static_cast<double>(kMaxOperations),
                                    stream ? " (a larger chunk, fewer bytes or fewer iterations issue fewer)" : "")};
  }
  if (w.bytes > kMaxBytesMoved) {
    return ParamProblem{repeated ? "iterations" : "bytes",
                        fmt::format("{} would move {} in all; at most {}, more than a day of simulation", name_of(p.op),
                                    sim::config::approximate_bytes(capped(w.bytes)),
                                    sim::config::approximate_bytes(kMaxBytesMoved))};
  }
  return std::nullopt;
}

}  // namespace tessera::workloads::microbench
