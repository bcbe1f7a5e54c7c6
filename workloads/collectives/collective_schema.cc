#include "workloads/collectives/collective_schema.h"

#include <fmt/format.h>

#include "workloads/collectives/collective_sizes.h"

namespace tessera::workloads::collectives {

const sim::config::Schema<CollectiveParams>& collective_schema() {
  using S = sim::config::Schema<CollectiveParams>;
  using P = CollectiveParams;
  static const S s =
      S("collective",
        "one collective operation on the GPUs, timed as nccl-tests times it (time per iteration, algbw, busbw)")
          .choice("op", &P::op, collective_op_choices(),
                  "the collective; broadcast, reduce and all_to_all are not modelled yet")
          .bytes("size", &P::size_bytes,
                 "nccl-tests' size: all_gather the gathered (receive) buffer, ranks x per-rank count x element; "
                 "reduce_scatter the send buffer, ranks x per-rank count x element; all_reduce the buffer")
          .range(1, 1ULL << 50)
          .choice("dtype", &P::dtype, collective_dtype_choices(), "element type (reductions add in fp32)")
          .count("ranks", &P::ranks, "GPUs taking part; 0: all GPUs of the system").range(0, 1 << 16)
          .choice("library", &P::library, collective_library_choices(),
                  "whose algorithms run: tessera, the kernels of the generated kinds; NCCL's and RCCL's own "
                  "algorithms, protocols and their selection are not modelled yet")
          .choice("algorithm", &P::algorithm, collective_algorithm_choices(),
                  "ring (RCCL/NCCL's ring, channels over rings of different strides) or one_shot (all_gather: "
                  "every rank stores its share into every peer; all_reduce: every rank reads every peer's buffer "
                  "and reduces it); reduce_scatter has ring only")
          .count("channels", &P::channels, "workgroups per rank of the collective kernel").range(1, 1 << 16)
          .bytes("chunk", &P::chunk_bytes, "the largest piece a channel moves at once").range(128, 1ULL << 40)
          .count("iterations", &P::iterations,
                 "launches back to back on one stream per rank, as nccl-tests' -n; the time reported is the mean "
                 "per iteration, the first launch included")
          .range(1, 10000);  // every iteration is a program of its own in the trace
  return s;
}

std::uint32_t ranks_of(const CollectiveParams& params, const models::SystemSpec& system) {
  return params.ranks != 0 ? params.ranks : system.num_gpus;
}

std::optional<patterns::ParamProblem> check_against_system(const CollectiveParams& params,
                                                           const models::SystemSpec& system) {
  const std::uint32_t ranks = ranks_of(params, system);
  if (auto problem = patterns::ranks_problem(ranks, system)) return problem;
  if (params.op == CollectiveOp::kReduceScatter && params.algorithm != CollectiveAlgorithm::kRing) {
    return patterns::ParamProblem{
        "algorithm", fmt::format("reduce_scatter has no {} kernel; choices for reduce_scatter: ring",
                                 algorithm_name(params.algorithm))};
  }
  if (auto problem = size_problem(params, ranks)) return patterns::ParamProblem{"size", *problem};
  return std::nullopt;
}

}  // namespace tessera::workloads::collectives
