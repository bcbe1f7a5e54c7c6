#include "workloads/collectives/collective_sizes.h"

#include <fmt/format.h>

#include "sim/config/units.h"
#include "workloads/patterns/nccl_kernels.h"
#include "workloads/patterns/gemm_tiling.h"
#include "workloads/patterns/reduce.h"

namespace tessera::workloads::collectives {
namespace {

// "4 MiB (4194304 B)", or "992 B" where the two would say the same.
std::string with_bytes(std::uint64_t bytes) {
  const std::string unit = sim::config::format_bytes(bytes);
  return unit == fmt::format("{} B", bytes) ? unit : fmt::format("{} ({} B)", unit, bytes);
}

}  // namespace

std::uint32_t element_bytes_of(const CollectiveParams& params) { return patterns::element_bytes(params.dtype); }

std::uint64_t element_count(const CollectiveParams& params) { return params.size_bytes / element_bytes_of(params); }

std::uint64_t size_granularity_bytes(const CollectiveParams& params, const CollectivePlan& plan, std::uint32_t ranks) {
  const std::uint64_t elem = element_bytes_of(params);
  switch (params.op) {
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll: return std::uint64_t{ranks} * elem;
    case CollectiveOp::kAllReduce:
      return params.library == CollectiveLibrary::kTessera && plan.algorithm == CollectiveAlgorithm::kRing
                 ? std::uint64_t{ranks} * elem
                 : elem;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce: return elem;
  }
  return elem;
}

std::optional<std::string> size_problem(const CollectiveParams& params, const CollectivePlan& plan,
                                        std::uint32_t ranks) {
  const std::uint64_t unit = size_granularity_bytes(params, plan, ranks);
  const std::uint64_t size = params.size_bytes;
  if (size != 0 && size % unit == 0) return std::nullopt;
  const std::string dtype(models::compute::dtype_name(params.dtype));
  std::string why;
  if (unit == element_bytes_of(params)) {
    why = fmt::format("whole {}-byte {} elements", unit, dtype);
  } else {
    const char* share = params.op == CollectiveOp::kAllGather       ? "all_gather gathers one equal share from each rank"
                        : params.op == CollectiveOp::kReduceScatter ? "reduce_scatter leaves one equal share on each rank"
                        : params.op == CollectiveOp::kAllToAll      ? "all_to_all sends one equal block to each rank"
                                                                    : "Tessera's ring all_reduce cuts the buffer into one "
                                                                      "equal chunk per rank";
    why = fmt::format("{} ranks x {}-byte {} elements: {}", ranks, element_bytes_of(params), dtype, share);
  }
  const std::uint64_t below = size / unit * unit;
  const std::uint64_t above = below + unit;
  const std::string nearest = below == 0 ? fmt::format("nearest valid size: {}", with_bytes(above))
                                         : fmt::format("nearest valid sizes: {} and {}", with_bytes(below), with_bytes(above));
  return fmt::format("{} B is not a multiple of {} B ({}); {}", size, unit, why, nearest);
}

CollectiveBuffers buffers_of(const CollectiveParams& params, const CollectivePlan& plan, std::uint32_t ranks) {
  const std::uint64_t size = params.size_bytes;
  CollectiveBuffers b{size, size, 0};
  if (params.op == CollectiveOp::kAllGather) b.input_bytes = size / ranks;
  if (params.op == CollectiveOp::kReduceScatter) b.output_bytes = size / ranks;
  if (plan.nccl) {
    b.scratch_bytes = patterns::nccl_fifo_bytes(*plan.nccl);
    return b;
  }
  const bool ring = plan.algorithm == CollectiveAlgorithm::kRing;
  switch (params.op) {
    case CollectiveOp::kReduceScatter: b.scratch_bytes = size; break;
    case CollectiveOp::kAllReduce: b.scratch_bytes = ring ? size : 0; break;
    case CollectiveOp::kReduce: {
      patterns::ReduceSpec spec;
      spec.algorithm = ring ? patterns::ReduceAlgorithm::kRing : patterns::ReduceAlgorithm::kOneShot;
      spec.bytes = size;
      spec.channels = plan.channels;
      spec.chunk_bytes = plan.chunk_bytes;
      b.scratch_bytes = patterns::reduce_scratch_bytes(spec);
      break;
    }
    default: break;
  }
  return b;
}

}  // namespace tessera::workloads::collectives
