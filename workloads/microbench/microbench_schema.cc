#include "workloads/microbench/microbench_schema.h"

#include <fmt/format.h>

namespace tessera::workloads::microbench {

const std::vector<std::pair<std::string, Op>>& op_names() {
  static const std::vector<std::pair<std::string, Op>> names{
      {"hbm_stream", Op::kHbmStream},       {"l2_bandwidth", Op::kL2Bandwidth}, {"remote_load", Op::kRemoteLoad},
      {"remote_store", Op::kRemoteStore},   {"all_load", Op::kAllLoad},         {"all_store", Op::kAllStore},
      {"atomic_add", Op::kAtomicAdd},       {"atomic_xchg", Op::kAtomicXchg},   {"flag_pingpong", Op::kFlagPingpong},
      {"launch_latency", Op::kLaunchLatency}, {"p2p_copy", Op::kP2pCopy}};
  return names;
}

std::string_view name_of(Op op) {
  for (const auto& [name, o] : op_names()) {
    if (o == op) return name;
  }
  return "unknown";
}

bool is_bandwidth_op(Op op) {
  switch (op) {
    case Op::kAtomicAdd:
    case Op::kAtomicXchg:
    case Op::kFlagPingpong:
    case Op::kLaunchLatency: return false;
    default: return true;
  }
}

bool needs_two_gpus(Op op) {
  switch (op) {
    case Op::kRemoteLoad:
    case Op::kRemoteStore:
    case Op::kAllLoad:
    case Op::kAllStore:
    case Op::kFlagPingpong:
    case Op::kP2pCopy: return true;
    default: return false;
  }
}

std::optional<ParamProblem> check_against_system(const MicrobenchParams& p, std::uint32_t num_gpus) {
  if (p.gpu >= num_gpus) {
    return ParamProblem{"gpu", fmt::format("GPU {} does not exist: the system has {} GPU(s)", p.gpu, num_gpus)};
  }
  const bool atomic = p.op == Op::kAtomicAdd || p.op == Op::kAtomicXchg;
  if (atomic && num_gpus > 1 && p.peer >= num_gpus) {  // the flags' home (its own GPU on a 1-GPU system)
    return ParamProblem{"peer", fmt::format("GPU {} does not exist: the system has {} GPUs", p.peer, num_gpus)};
  }
  if (needs_two_gpus(p.op)) {
    if (num_gpus < 2) {
      return ParamProblem{"op", fmt::format("{} needs at least two GPUs; the system has {}", name_of(p.op), num_gpus)};
    }
    if (p.op != Op::kAllLoad && p.op != Op::kAllStore) {
      if (p.peer >= num_gpus) {
        return ParamProblem{"peer", fmt::format("GPU {} does not exist: the system has {} GPUs", p.peer, num_gpus)};
      }
      if (p.peer == p.gpu) return ParamProblem{"peer", fmt::format("peer must differ from gpu ({})", p.gpu)};
    }
  }
  return std::nullopt;
}

const sim::config::Schema<MicrobenchParams>& microbench_schema() {
  static const sim::config::Schema<MicrobenchParams> s =
      sim::config::Schema<MicrobenchParams>("microbench", "a microbenchmark, as the kernel suite runs it (docs/kernels.md)")
          .choice("op", &MicrobenchParams::op, op_names(), "what is measured")
          .required()
          .bytes("bytes", &MicrobenchParams::bytes,
                 "buffer size: per peer for all_load / all_store, the working set for l2_bandwidth")
          .range(1, 1ULL << 46)
          .count("workgroups", &MicrobenchParams::workgroups,
                 "workgroups per GPU; 0: one per CU (num_dies × compute_units_per_die) for bandwidth ops, 1 for "
                 "latency ops")
          .range(0, 1 << 24)
          .bytes("chunk", &MicrobenchParams::chunk_bytes,
                 "bytes a workgroup moves per access: the buffers are cut into chunks that workgroup w of W takes "
                 "as w, w + W, ... (grid-stride loop)")
          .range(128, 1ULL << 40)
          .count("gpu", &MicrobenchParams::gpu, "the issuing GPU")
          .count("peer", &MicrobenchParams::peer,
                 "the other GPU of remote_*, flag_pingpong and p2p_copy, and the GPU holding the flags of atomic_*")
          .count("iterations", &MicrobenchParams::iterations,
                 "repetitions of latency ops; timed passes of l2_bandwidth")
          .range(1, 1 << 24);
  return s;
}

}  // namespace tessera::workloads::microbench
