#include "workloads/patterns/bsp_collective.h"

#include <stdexcept>

#include <fmt/format.h>

#include "workloads/patterns/nccl_kernels.h"
#include "workloads/patterns/nccl_tuning.h"
#include "workloads/patterns/rccl_tuning.h"

namespace tessera::workloads::patterns {

const std::vector<std::pair<std::string, BspCollective>>& bsp_collective_choices() {
  static const std::vector<std::pair<std::string, BspCollective>> names{{"ring", BspCollective::kRing},
                                                                         {"one_shot", BspCollective::kOneShot},
                                                                         {"nccl", BspCollective::kNccl},
                                                                         {"rccl", BspCollective::kRccl}};
  return names;
}

const std::vector<std::pair<std::string, BspHost>>& bsp_host_choices() {
  static const std::vector<std::pair<std::string, BspHost>> names{{"none", BspHost::kNone},
                                                                   {"pytorch", BspHost::kPytorch}};
  return names;
}

bool runs_library(BspCollective collective) {
  return collective == BspCollective::kNccl || collective == BspCollective::kRccl;
}

AllGatherAlgorithm tessera_all_gather(BspCollective collective) {
  return collective == BspCollective::kOneShot ? AllGatherAlgorithm::kOneShot : AllGatherAlgorithm::kRing;
}

AllReduceAlgorithm tessera_all_reduce(BspCollective collective) {
  return collective == BspCollective::kOneShot ? AllReduceAlgorithm::kOneShot : AllReduceAlgorithm::kRing;
}

std::optional<ParamProblem> host_problem(BspHost host, const models::SystemSpec& system) {
  if (host != BspHost::kPytorch) return std::nullopt;
  if (system.host.framework_op_ps == 0 || system.host.framework_collective_ps == 0) {
    // A framework that costs nothing is host: none; a silent zero would pass for a measurement.
    return ParamProblem{"host", fmt::format("host: pytorch needs the system's host.framework_op and "
                                            "host.framework_collective, which {} leaves at 0 s (not measured "
                                            "for it): give them (e.g. --set system.host.framework_op=15us) or "
                                            "use host: none",
                                            system.name)};
  }
  return std::nullopt;
}

namespace {

void append_host_delay(trace::TraceBuilder& builder, std::uint32_t ranks, sim::Tick delay_ps) {
  // One process per GPU: each rank's host spends the time itself, in parallel with the others.
  if (delay_ps == 0) return;
  for (std::uint32_t r = 0; r < ranks; ++r) builder.host_delay(r, delay_ps);
}

}  // namespace

void append_framework_op(trace::TraceBuilder& builder, std::uint32_t ranks, const models::SystemSpec& system,
                         BspHost host) {
  if (host == BspHost::kPytorch) append_host_delay(builder, ranks, system.host.framework_op_ps);
}

void append_framework_collective(trace::TraceBuilder& builder, std::uint32_t ranks, const models::SystemSpec& system,
                                 BspHost host) {
  if (host == BspHost::kPytorch) append_host_delay(builder, ranks, system.host.framework_collective_ps);
}

std::uint64_t append_library_collective(trace::TraceBuilder& builder, std::uint32_t ranks,
                                        const models::SystemSpec& system, const LibraryCollectiveSpec& spec) {
  if (!runs_library(spec.library)) throw std::logic_error("bsp: a library collective needs nccl or rccl");
  NcclKernelSpec kernel;
  kernel.name = spec.name;
  kernel.op = spec.op;
  // RCCL's device code is NCCL's (rccl_tuning.h): only the plan differs.
  kernel.plan = spec.library == BspCollective::kNccl
                    ? nccl_plan(spec.op, spec.size_bytes, nccl_topology_of(system, ranks))
                    : rccl_plan(spec.op, spec.size_bytes, rccl_topology_of(system, ranks));
  kernel.dtype = spec.dtype;
  kernel.size_bytes = spec.size_bytes;
  kernel.input_buffer = spec.input_buffer;
  kernel.in_place = spec.in_place;
  kernel.output_buffer = spec.output_buffer;
  kernel.fifo_buffer = builder.buffer(spec.name + "_fifo", nccl_fifo_bytes(kernel.plan));
  kernel.flag_base = spec.flag_base;
  kernel.spread_rings = system.interconnect.topology == "full_mesh";
  kernel.node_ranks = ranks > models::gpus_per_node(system) ? models::gpus_per_node(system) : 0;
  kernel.kernel_overhead_ps = nccl_kernel_overhead_ps(system.gpu, kernel.plan.protocol);
  append_nccl_collective(builder, ranks, kernel);
  return nccl_flags(kernel.plan);
}

}  // namespace tessera::workloads::patterns
