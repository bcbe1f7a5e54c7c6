#pragma once
// The microbenchmark workloads (workload kind `microbench`): the measurements that
// characterise a machine, with the semantics of the kernel suite's cases.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::workloads::microbench {

enum class Op : std::uint8_t {
  kHbmStream,     // one GPU copies `bytes` within its memory; counts bytes read + written
  kL2Bandwidth,   // one GPU re-reads a working set of `bytes`; a warm-up pass, then `iterations` timed passes
  kRemoteLoad,    // GPU `gpu` reads `bytes` from GPU `peer`
  kRemoteStore,   // GPU `gpu` writes `bytes` to GPU `peer`
  kAllLoad,       // every GPU reads `bytes` from each of its peers at once
  kAllStore,      // every GPU writes `bytes` to each of its peers at once
  kAtomicAdd,     // each workgroup of GPU `gpu` issues `iterations` dependent atomic adds on a flag of `peer`
  kAtomicXchg,    // the same with atomic exchange
  kFlagPingpong,  // GPUs `gpu` and `peer` bounce a flag `iterations` times (release-store, spin-wait)
  kLaunchLatency, // `iterations` empty kernels back to back on one stream of GPU `gpu`
  kP2pCopy,       // a copy engine moves `bytes` from GPU `gpu` to GPU `peer`
};

const std::vector<std::pair<std::string, Op>>& op_names();
std::string_view name_of(Op op);
bool is_bandwidth_op(Op op);
bool needs_two_gpus(Op op);

struct MicrobenchParams {
  Op op = Op::kHbmStream;
  std::uint64_t bytes = 256ULL << 20;       // buffer size (per peer for all_load / all_store)
  std::uint32_t workgroups = 0;             // per GPU; 0: one per CU for streams, 1 for latency ops
  std::uint64_t chunk_bytes = 256ULL << 10; // what one workgroup moves per access
  std::uint32_t gpu = 0;                    // the issuing GPU
  std::uint32_t peer = 1;                   // the other GPU of two-GPU ops
  std::uint32_t iterations = 100;           // repetitions of latency ops; timed passes of l2_bandwidth
};

// Cross-checks against the system; returns the offending key and what is wrong, or nullopt.
struct ParamProblem {
  std::string key;
  std::string message;
};
std::optional<ParamProblem> check_against_system(const MicrobenchParams& params, std::uint32_t num_gpus);

}  // namespace tessera::workloads::microbench
