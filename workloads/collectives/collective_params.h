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

namespace tessera::workloads::collectives {

// The ops whose kernels exist (all_gather.h, reduce_scatter.h, all_reduce.h); broadcast, reduce
// and all_to_all have none yet.
enum class CollectiveOp : std::uint8_t { kAllGather, kAllReduce, kReduceScatter };
// Whose algorithms run: `tessera`, the kernels of workloads/patterns/. NCCL's and RCCL's own
// algorithm and protocol selection (ring/tree, LL/LL128/Simple, by size and topology) is not modelled.
enum class CollectiveLibrary : std::uint8_t { kTessera };
enum class CollectiveAlgorithm : std::uint8_t { kRing, kOneShot };

const std::vector<std::pair<std::string, CollectiveOp>>& collective_op_choices();
const std::vector<std::pair<std::string, CollectiveLibrary>>& collective_library_choices();
const std::vector<std::pair<std::string, CollectiveAlgorithm>>& collective_algorithm_choices();
const std::vector<std::pair<std::string, models::compute::Dtype>>& collective_dtype_choices();

std::string op_name(CollectiveOp op);
std::string algorithm_name(CollectiveAlgorithm algorithm);

struct CollectiveParams {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::uint64_t size_bytes = 256ULL << 20;  // nccl-tests' size (collective_sizes.h)
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t ranks = 0;  // 0: every GPU of the system
  CollectiveLibrary library = CollectiveLibrary::kTessera;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  // The kernels' defaults (workloads/patterns/all_reduce.h): 16 workgroups, NCCL Simple's
  // 512 KiB step (a 4 MiB buffer in 8 steps).
  std::uint32_t channels = 16;
  std::uint64_t chunk_bytes = 512ULL << 10;
  std::uint32_t iterations = 1;  // launches back to back, as nccl-tests' `-n`
};

}  // namespace tessera::workloads::collectives
