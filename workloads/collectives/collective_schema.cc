#include "workloads/collectives/collective_schema.h"

#include <fmt/format.h>

#include "workloads/collectives/collective_plan.h"
#include "workloads/collectives/collective_sizes.h"

namespace tessera::workloads::collectives {

const sim::config::Schema<CollectiveParams>& collective_schema() {
  using S = sim::config::Schema<CollectiveParams>;
  using P = CollectiveParams;
  static const S s =
      S("collective",
        "one collective operation on the GPUs, timed as nccl-tests times it (time per iteration, algbw, busbw)")
          .choice("op", &P::op, collective_op_choices(), "the collective (broadcast and reduce: root 0, as nccl-tests)")
          .bytes("size", &P::size_bytes,
                 "nccl-tests' size: all_gather the gathered (receive) buffer, ranks x per-rank count x element; "
                 "reduce_scatter and all_to_all the send buffer, ranks x per-rank count x element; all_reduce, "
                 "broadcast and reduce the buffer")
          .range(1, 1ULL << 50)
          .choice("dtype", &P::dtype, collective_dtype_choices(), "element type (reductions add in fp32)")
          .count("ranks", &P::ranks, "GPUs taking part; 0: all GPUs of the system").range(0, 1 << 16)
          .choice("library", &P::library, collective_library_choices(),
                  "whose algorithms run: tessera, the kernels of the generated kinds; nccl, NCCL 2.28's choice of "
                  "algorithm, protocol, channels and chunks, run as its kernels run; rccl, RCCL's choice (AMD's "
                  "fork: its own tuning tables and channels) on the same kernels (docs/workloads.md)")
          .choice("algorithm", &P::algorithm, collective_algorithm_choices(),
                  "auto (the library's choice), ring, one_shot (tessera: all_gather, all_reduce, broadcast, reduce), "
                  "tree (nccl, rccl: all_reduce) or direct (all_to_all)")
          .choice("protocol", &P::protocol, collective_protocol_choices(),
                  "NCCL's protocol (nccl and rccl only): auto (the library's tuner's choice), ll, ll128 or simple")
          .count("channels", &P::channels,
                 "workgroups per rank of the collective kernel; 0: the library's own (tessera 16; nccl and rccl "
                 "their tuner's, which this caps as NCCL_MAX_NCHANNELS does)")
          .range(0, 1 << 16)
          .bytes("chunk", &P::chunk_bytes, "tessera: the largest piece a channel moves at once; 0: 512 KiB")
          .range(0, 1ULL << 40)
          .count("iterations", &P::iterations,
                 "launches back to back on one stream per rank, as nccl-tests' -n; the time reported is the mean "
                 "per iteration, the first launch included")
          .range(1, 10000)  // every iteration is a program of its own in the trace
          .choice("host", &P::host, collective_host_choices(),
                  "who issues the calls: none (launches back to back, the GPU-side time), one_thread (one thread "
                  "issues every rank's call in turn, as nccl-tests in one process) or per_rank (a thread per "
                  "rank); a call costs the system's host.collective_call");
  return s;
}

std::uint32_t ranks_of(const CollectiveParams& params, const models::SystemSpec& system) {
  return params.ranks != 0 ? params.ranks : system.num_gpus;
}

std::optional<patterns::ParamProblem> check_against_system(const CollectiveParams& params,
                                                           const models::SystemSpec& system) {
  const std::uint32_t ranks = ranks_of(params, system);
  if (auto problem = patterns::ranks_problem(ranks, system)) return problem;
  const std::uint32_t per_node = models::gpus_per_node(system);
  if (params.library == CollectiveLibrary::kRccl && ranks > per_node) {
    // RCCL's tuner is modelled for one node (patterns/rccl_tuning.h).
    return patterns::ParamProblem{
        "library", fmt::format("rccl is modelled within one node; {} ranks span {} nodes of {} GPUs in '{}': use "
                               "library tessera or nccl (their kernels cross nodes through the NICs) or ranks <= {}",
                               ranks, (ranks + per_node - 1) / per_node, per_node, system.name, per_node)};
  }
  if (params.library == CollectiveLibrary::kNccl && ranks > per_node && ranks % per_node != 0) {
    return patterns::ParamProblem{
        "ranks", fmt::format("NCCL's ranks across nodes fill whole nodes: {} ranks on nodes of {} GPUs in '{}'", ranks,
                             per_node, system.name)};
  }
  if (auto problem = plan_problem(params)) return problem;
  CollectivePlan plan;
  try {
    plan = plan_of(params, system, ranks);
  } catch (const std::invalid_argument& e) {
    // NCCL or RCCL has no pair left for the overrides (e.g. LL128 over PCIe, tree Simple on gfx94x).
    return patterns::ParamProblem{params.protocol != CollectiveProtocol::kAuto ? "protocol" : "algorithm", e.what()};
  }
  if (auto problem = size_problem(params, plan, ranks)) return patterns::ParamProblem{"size", *problem};
  return std::nullopt;
}

}  // namespace tessera::workloads::collectives
