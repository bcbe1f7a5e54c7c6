#pragma once
// What a collective workload runs once its library has chosen: the algorithm (never `auto`),
// the channels and chunks, and for NCCL and RCCL the whole plan (workloads/patterns/nccl_tuning.h,
// rccl_tuning.h). One place decides, so that the trace, the buffers and the report agree.
//
//   library   op                                     algorithms (auto first)
//   tessera   all_gather, all_reduce                 ring, one_shot
//             reduce_scatter                         ring
//             broadcast, reduce                      ring, one_shot
//             all_to_all                             direct
//   nccl      all_reduce                             NCCL's choice, ring, tree
//             all_gather, reduce_scatter,
//             broadcast, reduce                      NCCL's choice (ring), ring
//             all_to_all                             direct (NCCL runs it as grouped sends and
//                                                    receives, one per peer, not as an algorithm)
//   rccl      as nccl, by RCCL's tuner (rccl_tuning.h); all_to_all direct on RCCL's p2p channels
#include <cstdint>
#include <optional>

#include "models/system/system_spec.h"
#include "workloads/collectives/collective_params.h"
#include "workloads/patterns/nccl_tuning.h"
#include "workloads/patterns/param_problem.h"

namespace tessera::workloads::collectives {

struct CollectivePlan {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  std::uint32_t channels = 16;
  std::uint64_t chunk_bytes = 512ULL << 10;
  // Tessera's rings: channels over rings of different strides (patterns/reduce_scatter.h) within
  // one node; rank order when the ranks span nodes, so that each channel crosses each node
  // boundary once (a stride d ring would cross up to d times as often, through the NICs).
  bool spread_rings = true;
  // Library nccl or rccl, except all_to_all: RCCL's plan is an NcclPlan too, since its kernels are
  // NCCL's (nccl_kernels.h runs either).
  std::optional<patterns::NcclPlan> nccl;
};

// Why the params' library, algorithm, protocol or chunk do not go together for the op (the key
// and the message), or nullopt.
std::optional<patterns::ParamProblem> plan_problem(const CollectiveParams& params);

// The plan; the params must be valid (plan_problem). Throws std::invalid_argument when NCCL (or
// RCCL) has no pair left for an override (e.g. LL128 over PCIe, tree Simple on gfx94x for RCCL).
CollectivePlan plan_of(const CollectiveParams& params, const models::SystemSpec& system, std::uint32_t ranks);

}  // namespace tessera::workloads::collectives
