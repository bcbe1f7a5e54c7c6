#pragma once
// The parameters of kind `collective`: one collective operation run as nccl-tests runs it
// (`all_reduce_perf -b SIZE -e SIZE -n ITERS`), on the collective kernels of workloads/patterns/.
// What `size` means per op follows nccl-tests (collective_sizes.h); the figures a run reports
// (time, algbw, busbw) are collective_figures.h's.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_timing.h"
#include "workloads/patterns/collective_op.h"

namespace tessera::workloads::collectives {

// The ops (workloads/patterns/collective_op.h).
using patterns::CollectiveOp;
using patterns::collective_op_choices;
using patterns::op_name;
// Whose algorithms run: `tessera`, the kernels of workloads/patterns/ (the generated kinds'
// collectives); `nccl`, NCCL's own choice of algorithm, protocol, channels and chunks
// (workloads/patterns/nccl_tuning.h) run as NCCL's kernels run them (nccl_kernels.h); `rccl`,
// RCCL's choice (workloads/patterns/rccl_tuning.h: AMD's fork, its own tables and channels) run
// on the same kernels, which RCCL shares with NCCL.
enum class CollectiveLibrary : std::uint8_t { kTessera, kNccl, kRccl };
// `auto`: the library's own choice (tessera: ring, direct for all_to_all; nccl, rccl: its tuner's).
enum class CollectiveAlgorithm : std::uint8_t { kAuto, kRing, kOneShot, kTree, kDirect };
// NCCL's protocols (RCCL's too); `auto`: the tuner's choice. Tessera's kernels have none (their
// flags are separate stores after the data, as NCCL's Simple).
enum class CollectiveProtocol : std::uint8_t { kAuto, kLL, kLL128, kSimple };
// Who issues the calls: `none`, nothing between back-to-back launches (the GPU-side time);
// `one_thread`, one host thread issuing every rank's call in turn, as nccl-tests and the kernel
// suite run a single process over all GPUs; `per_rank`, a thread per rank (one process per GPU).
// Each call costs the system's host.collective_call of CPU time.
enum class CollectiveHost : std::uint8_t { kNone, kOneThread, kPerRank };

const std::vector<std::pair<std::string, CollectiveLibrary>>& collective_library_choices();
const std::vector<std::pair<std::string, CollectiveAlgorithm>>& collective_algorithm_choices();
const std::vector<std::pair<std::string, CollectiveProtocol>>& collective_protocol_choices();
const std::vector<std::pair<std::string, CollectiveHost>>& collective_host_choices();
const std::vector<std::pair<std::string, models::compute::Dtype>>& collective_dtype_choices();

std::string algorithm_name(CollectiveAlgorithm algorithm);
std::string library_name(CollectiveLibrary library);
std::string protocol_name(CollectiveProtocol protocol);

struct CollectiveParams {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::uint64_t size_bytes = 256ULL << 20;  // nccl-tests' size (collective_sizes.h)
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t ranks = 0;  // 0: every GPU of the system
  CollectiveLibrary library = CollectiveLibrary::kTessera;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto;
  CollectiveProtocol protocol = CollectiveProtocol::kAuto;  // nccl and rccl only
  // 0: the library's own. Tessera's kernels (workloads/patterns/all_reduce.h): 16 workgroups and
  // NCCL Simple's 512 KiB step (a 4 MiB buffer in 8 steps); NCCL, RCCL: the tuner's (an upper
  // bound when given, as NCCL_MAX_NCHANNELS).
  std::uint32_t channels = 0;
  std::uint64_t chunk_bytes = 0;  // tessera only: NCCL's and RCCL's chunks follow the protocol
  std::uint32_t iterations = 1;  // launches back to back, as nccl-tests' `-n`
  CollectiveHost host = CollectiveHost::kNone;
};

}  // namespace tessera::workloads::collectives
