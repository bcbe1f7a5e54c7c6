#include "workloads/collectives/collective_plan.h"

#include <fmt/format.h>

#include "workloads/patterns/rccl_tuning.h"

namespace tessera::workloads::collectives {
namespace {

bool tessera_has(CollectiveOp op, CollectiveAlgorithm a) {
  switch (op) {
    case CollectiveOp::kAllGather:
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce: return a == CollectiveAlgorithm::kRing || a == CollectiveAlgorithm::kOneShot;
    case CollectiveOp::kReduceScatter: return a == CollectiveAlgorithm::kRing;
    case CollectiveOp::kAllToAll: return a == CollectiveAlgorithm::kDirect;
  }
  return false;
}

// NCCL's and RCCL's (RCCL's tuner offers the same algorithms within one node).
bool nccl_has(CollectiveOp op, CollectiveAlgorithm a) {
  if (op == CollectiveOp::kAllToAll) return a == CollectiveAlgorithm::kDirect;
  if (a == CollectiveAlgorithm::kTree) return op == CollectiveOp::kAllReduce;
  return a == CollectiveAlgorithm::kRing;
}

std::string choices_for(CollectiveLibrary library, CollectiveOp op) {
  std::string out = "auto";
  for (const auto& [name, a] : collective_algorithm_choices()) {
    if (a == CollectiveAlgorithm::kAuto) continue;
    if (library == CollectiveLibrary::kTessera ? tessera_has(op, a) : nccl_has(op, a)) out += ", " + name;
  }
  return out;
}

CollectiveAlgorithm tessera_default(CollectiveOp op) {
  return op == CollectiveOp::kAllToAll ? CollectiveAlgorithm::kDirect : CollectiveAlgorithm::kRing;
}

}  // namespace

std::optional<patterns::ParamProblem> plan_problem(const CollectiveParams& p) {
  const bool tessera = p.library == CollectiveLibrary::kTessera;
  if (p.algorithm != CollectiveAlgorithm::kAuto &&
      !(tessera ? tessera_has(p.op, p.algorithm) : nccl_has(p.op, p.algorithm))) {
    return patterns::ParamProblem{
        "algorithm", fmt::format("library {} has no {} {}; choices for {}: {}", library_name(p.library),
                                 algorithm_name(p.algorithm), op_name(p.op), op_name(p.op), choices_for(p.library, p.op))};
  }
  if (tessera && p.protocol != CollectiveProtocol::kAuto) {
    return patterns::ParamProblem{"protocol", fmt::format("protocol {} is NCCL's: library tessera's kernels have "
                                                          "none (use library: nccl or rccl, or protocol: auto)",
                                                          protocol_name(p.protocol))};
  }
  if (tessera && p.chunk_bytes != 0 && p.chunk_bytes < 128) {
    return patterns::ParamProblem{"chunk", fmt::format("{} B is below the 128 B of a cache line (0: the default "
                                                       "512 KiB)", p.chunk_bytes)};
  }
  if (!tessera && p.chunk_bytes != 0) {
    const bool rccl = p.library == CollectiveLibrary::kRccl;
    return patterns::ParamProblem{"chunk", fmt::format("library {} sizes its chunks by protocol ({}'s buffers); chunk is "
                                                       "for library tessera's kernels",
                                                       library_name(p.library), rccl ? "RCCL" : "NCCL")};
  }
  return std::nullopt;
}

CollectivePlan plan_of(const CollectiveParams& p, const models::SystemSpec& system, std::uint32_t ranks) {
  CollectivePlan plan;
  plan.spread_rings = ranks <= models::gpus_per_node(system);
  if (p.library == CollectiveLibrary::kTessera || p.op == CollectiveOp::kAllToAll) {
    plan.algorithm = p.algorithm == CollectiveAlgorithm::kAuto ? tessera_default(p.op) : p.algorithm;
    if (p.library == CollectiveLibrary::kNccl) {
      // NCCL's grouped sends and receives: a channel per peer connection of its topology.
      plan.channels = p.channels != 0 ? p.channels : patterns::nccl_topology_of(system, ranks).channels;
    } else if (p.library == CollectiveLibrary::kRccl) {
      // RCCL's grouped sends and receives run on its p2p channels (paths.cc, ncclTopoComputeP2pChannels).
      plan.channels = p.channels != 0 ? p.channels : patterns::rccl_topology_of(system, ranks).p2p_channels;
    } else if (p.channels != 0) {
      plan.channels = p.channels;
    }
    if (p.chunk_bytes != 0) plan.chunk_bytes = p.chunk_bytes;
    return plan;
  }
  patterns::NcclOverrides overrides;
  if (p.algorithm == CollectiveAlgorithm::kRing) overrides.algorithm = patterns::NcclAlgorithm::kRing;
  if (p.algorithm == CollectiveAlgorithm::kTree) overrides.algorithm = patterns::NcclAlgorithm::kTree;
  if (p.protocol == CollectiveProtocol::kLL) overrides.protocol = patterns::NcclProtocol::kLL;
  if (p.protocol == CollectiveProtocol::kLL128) overrides.protocol = patterns::NcclProtocol::kLL128;
  if (p.protocol == CollectiveProtocol::kSimple) overrides.protocol = patterns::NcclProtocol::kSimple;
  overrides.max_channels = p.channels;
  plan.nccl = p.library == CollectiveLibrary::kRccl
                  ? patterns::rccl_plan(p.op, p.size_bytes, patterns::rccl_topology_of(system, ranks), overrides)
                  : patterns::nccl_plan(p.op, p.size_bytes, patterns::nccl_topology_of(system, ranks), overrides);
  plan.algorithm = plan.nccl->algorithm == patterns::NcclAlgorithm::kTree ? CollectiveAlgorithm::kTree : CollectiveAlgorithm::kRing;
  plan.channels = plan.nccl->channels;
  plan.chunk_bytes = plan.nccl->chunk_bytes;
  return plan;
}

}  // namespace tessera::workloads::collectives
