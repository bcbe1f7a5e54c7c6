#pragma once
// All-Gather + GEMM (kind `ag_gemm`; the taxes paper, arXiv 2511.02168, and Iris
// examples/14_all_gather_gemm): A (m x k) is sharded along K over the ranks
// (rank r owns columns [r * k_s, (r + 1) * k_s), k_s = k / ranks, as an m x k_s matrix), B (k x n)
// is replicated, and every rank computes the whole C = A·B. Three ways to get the other ranks'
// A columns to the GEMM (docs/workloads.md):
//
//  * bsp: an all-gather collective kernel (all_gather.h: a ring, as RCCL; or the vendor
//    library's, bsp_collective.h) into A_gathered ([ranks][m x k_s]), a concat kernel into A
//    (m x k, optional), then the GEMM kernel; all on stream 0, so stream order is the barrier
//    between them; with host: pytorch, the framework's host time before each launch.
//  * pull: one persistent GEMM kernel whose K-loop loads A's blocks of slab s straight from
//    rank s's shard (remote loads for s != rank; Iris persistent_ag_gemm). No flags; the host
//    rank barrier before the launch guarantees every shard is in place.
//  * push: as the Iris example and benchmark (examples/14_all_gather_gemm,
//    benchmark_all_gather_gemm_push.py) run it: a producer kernel `push_shards` (push_shards.h)
//    stores every A block of the rank's shard into every rank's inbox and releases a flag per
//    (source, m-tile, k-tile) on it; then the GEMM kernel, on the SAME stream, waits for each
//    block's flag (acquiring the block's inbox range) before loading it from the local inbox.
//    Stream order makes the rank's own pushes finish first; the flags order it against the
//    other ranks' pushes, which may still be in flight.
//
// Every variant starts with a host rank barrier (the benchmarks barrier the ranks before each
// iteration; the flags start at 0) and ends with a host sync.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/bsp_collective.h"
#include "workloads/patterns/gemm_params.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

enum class AgGemmVariant : std::uint8_t { kBsp, kPull, kPush };
const std::vector<std::pair<std::string, AgGemmVariant>>& ag_gemm_variant_choices();

// In which order a rank visits the other ranks: natural (0, 1, .., R-1: every rank starts on
// rank 0, as the Iris kernels do) or staggered ((rank + i) % R: each starts on itself).
enum class PeerOrder : std::uint8_t { kNatural, kStaggered };
const std::vector<std::pair<std::string, PeerOrder>>& peer_order_choices();

struct AgGemmParams {
  GemmShapeParams gemm{
      .m = 1024,  // the public benchmarks sweep M in {1, 2, 4, .., 1024}
      .n = 3584,
      .k = 8192,
      .dtype = models::compute::Dtype::kFp16,
      .block_m = 256,  // the public benchmarks' tiles: 256 x 64 x 64
      .block_n = 64,
      .block_k = 64,
      .group_m = 6,  // the Iris benchmark's --gsize_m default
      // The Iris ag_gemm examples launch with NUM_XCDS = 1, i.e. no remap.
      .xcd_remap = XcdRemap::kNone,
  };
  std::uint32_t ranks = 0;       // 0: every GPU of the system
  std::uint32_t workgroups = 0;  // GEMM grid (and concat grid); 0: one per CU (304 on MI300X)
  AgGemmVariant variant = AgGemmVariant::kBsp;
  TileAddressing addressing = TileAddressing::kPanels;
  PeerOrder peer_order = PeerOrder::kNatural;  // pull: slab order; push: destinations and slab order
  // bsp only.
  BspCollective collective = BspCollective::kRing;      // bsp_collective.h
  std::uint32_t collective_workgroups = 16;             // Tessera's kernels: channels (a library picks its own)
  std::uint64_t collective_chunk_bytes = 512ULL << 10;  // NCCL Simple: a 4 MiB buffer in 8 steps
  bool concat = true;
  BspHost host = BspHost::kNone;
};

// The `workload:` keys of kind `ag_gemm` (besides `kind`).
const sim::config::Schema<AgGemmParams>& ag_gemm_schema();

std::uint32_t ranks_of(const AgGemmParams& params, const models::SystemSpec& system);
GemmTiling tiling_of(const AgGemmParams& params);
std::optional<ParamProblem> check_against_system(const AgGemmParams& params, const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_ag_gemm(const AgGemmParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns
