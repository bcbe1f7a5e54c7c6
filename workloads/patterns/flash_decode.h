#pragma once
// Distributed flash decode (kind `flash_decode`; the taxes paper, arXiv 2511.02168; Iris
// examples/13_flash_decode and its RCCL reference, examples/benchmark/reference/flash_decode_rccl).
// The KV cache is sharded along the sequence over the ranks; every rank runs split-KV decode
// attention over its shard (kv_splits splits), combines its splits locally, and the ranks
// exchange the combined partials (per (batch, q head): head_dim values and the log-sum-exp) so
// that every rank reduces the global output. Shapes, buffers and the work split:
// flash_decode_layout.h; the kernels: flash_decode_kernels.h. Three ways to exchange the partials:
//
//  * bsp: split_kv -> combine (into `combined`) -> all_gather (all_gather.h: the collective as a
//    kernel, a ring as RCCL's all_gather_into_tensor; or the library's own, bsp_collective.h) into
//    `gathered` -> global_reduce; one stream, so stream order is the barrier between them
//    (fd_layer_rccl.py); with host: pytorch, the framework's host time before each launch.
//  * fused_coarse: split_kv -> combine_push -> global_reduce. Every combine workgroup stores its
//    record into gathered[rank] of every rank; one flag per (destination, source): the source's
//    last workgroup releases it once every workgroup of the source has pushed; the global
//    reduce waits per source.
//  * fused: as Iris gqa_local_reduce_fused / gqa_global_reduce_fused: one flag per (destination,
//    source, batch, head), released right after that record's store; the global reduce spins
//    per (source, batch, head) and reads the record.
// In the fused variants, combine_push and global_reduce share the stream (as the Iris layer
// launches them): the flags order the reduce against the peers' pushes.
//
// Every variant starts with a host rank barrier (the benchmark barriers the ranks before each
// iteration; the flags start at 0) and ends with a host sync.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/system/system_spec.h"
#include "sim/config/schema.h"
#include "workloads/patterns/ag_gemm.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/bsp_collective.h"
#include "workloads/patterns/flash_decode_layout.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/trace.h"

namespace tessera::workloads::patterns {

enum class FlashDecodeVariant : std::uint8_t { kBsp, kFusedCoarse, kFused };
const std::vector<std::pair<std::string, FlashDecodeVariant>>& flash_decode_variant_choices();

struct FlashDecodeParams {
  std::uint32_t batch = 1;  // the public benchmarks: 1, 4, 8, 16
  std::uint32_t q_heads = 96;
  std::uint32_t kv_heads = 12;  // GQA group 8
  std::uint32_t head_dim = 128;
  // The public benchmarks: 8K-512K per rank; 32768 is the Iris example's default
  // (example_run.py --kv_len_per_rank).
  std::uint64_t kv_len_per_rank = 32768;
  std::uint32_t kv_splits = 32;  // Iris NUM_KV_SPLITS
  std::uint32_t ranks = 0;       // 0: every GPU of the system
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint32_t block_n = 64;  // Iris BLOCK_N: KV tokens per block
  std::uint32_t block_h = 16;  // Iris BLOCK_H: query-head rows of the matrix tile
  // KV blocks per load/compute op (flash_decode_layout.h, "Coarsening"); 1: the exact per-block
  // loop. 8 keeps the 8-rank, 256K-token, batch-16 trace at ~0.4 M ops per rank.
  std::uint32_t blocks_per_op = 8;
  bool shared_kv = false;  // every sequence reads the same KV pages (the Iris benchmark's block table)
  FlashDecodeVariant variant = FlashDecodeVariant::kBsp;
  PeerOrder peer_order = PeerOrder::kNatural;  // push destinations and reduce sources
  // bsp only.
  BspCollective collective = BspCollective::kRing;  // bsp_collective.h
  std::uint32_t collective_workgroups = 16;         // Tessera's kernels (a library picks its own)
  std::uint64_t collective_chunk_bytes = 512ULL << 10;
  BspHost host = BspHost::kNone;
};

// The `workload:` keys of kind `flash_decode` (besides `kind`).
const sim::config::Schema<FlashDecodeParams>& flash_decode_schema();

std::uint32_t ranks_of(const FlashDecodeParams& params, const models::SystemSpec& system);
FlashDecodeLayout layout_of(const FlashDecodeParams& params, std::uint32_t ranks);
std::optional<ParamProblem> check_against_system(const FlashDecodeParams& params, const models::SystemSpec& system);

// The trace; throws std::invalid_argument naming the key of an impossible parameter.
trace::Trace make_flash_decode(const FlashDecodeParams& params, const models::SystemSpec& system);

}  // namespace tessera::workloads::patterns
