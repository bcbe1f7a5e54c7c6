#include "workloads/collectives/collective_trace.h"

#include <fmt/format.h>

#include "workloads/collectives/collective_schema.h"
#include "workloads/collectives/collective_sizes.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/all_reduce.h"
#include "workloads/patterns/reduce_scatter.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::collectives {
namespace {

using patterns::AllGatherAlgorithm;
using patterns::AllReduceAlgorithm;

struct Buffers {
  std::uint32_t input = trace::kNoBuffer;
  std::uint32_t output = trace::kNoBuffer;
  std::uint32_t scratch = trace::kNoBuffer;
};

// What every collective spec takes alike from the workload: its channels and pieces, its first
// flag and its kernel's name.
template <class Spec>
void set_common(Spec& spec, const CollectiveParams& p, std::uint64_t flag_base, const std::string& name) {
  spec.channels = p.channels;
  spec.chunk_bytes = p.chunk_bytes;
  spec.flag_base = flag_base;
  spec.name = name;
}

// One iteration's kernels from flag_base on; returns the flags they use.
std::uint64_t append_iteration(trace::TraceBuilder& tb, const CollectiveParams& p, std::uint32_t ranks,
                               const CollectiveBuffers& sizes, const Buffers& b, std::uint32_t iteration,
                               std::uint64_t flag_base) {
  const bool ring = p.algorithm == CollectiveAlgorithm::kRing;
  // A program's name is unique in a trace, and each iteration's has its own flags.
  const std::string name = p.iterations == 1 ? op_name(p.op) : fmt::format("{}_{}", op_name(p.op), iteration);
  switch (p.op) {
    case CollectiveOp::kAllGather: {
      patterns::AllGatherSpec spec;
      spec.algorithm = ring ? AllGatherAlgorithm::kRing : AllGatherAlgorithm::kOneShot;
      spec.input_buffer = b.input;
      spec.output_buffer = b.output;
      spec.shard_bytes = sizes.input_bytes;
      set_common(spec, p, flag_base, name);
      patterns::append_all_gather(tb, ranks, spec);
      return patterns::all_gather_flags(spec, ranks);
    }
    case CollectiveOp::kReduceScatter: {
      patterns::ReduceScatterSpec spec;
      spec.dtype = p.dtype;
      spec.input_buffer = b.input;
      spec.output_buffer = b.output;
      spec.scratch_buffer = b.scratch;
      spec.shard_bytes = sizes.output_bytes;
      set_common(spec, p, flag_base, name);
      patterns::append_reduce_scatter(tb, ranks, spec);
      return patterns::reduce_scatter_flags(spec, ranks);
    }
    case CollectiveOp::kAllReduce: {
      patterns::AllReduceSpec spec;
      spec.algorithm = ring ? AllReduceAlgorithm::kRing : AllReduceAlgorithm::kOneShot;
      spec.dtype = p.dtype;
      spec.input_buffer = b.input;
      spec.output_buffer = b.output;
      spec.scratch_buffer = b.scratch;
      spec.bytes = p.size_bytes;
      set_common(spec, p, flag_base, name);
      patterns::append_all_reduce(tb, ranks, spec);
      return patterns::all_reduce_flags(spec, ranks);
    }
  }
  return 0;
}

}  // namespace

trace::Trace make_collective_trace(const CollectiveParams& p, const models::SystemSpec& system) {
  patterns::throw_if_problem("collective", check_against_system(p, system));
  const std::uint32_t ranks = ranks_of(p, system);
  const CollectiveBuffers sizes = buffers_of(p, ranks);

  trace::TraceBuilder tb(ranks);
  Buffers b;
  b.input = tb.buffer("input", sizes.input_bytes);
  b.output = tb.buffer("output", sizes.output_bytes);
  if (sizes.scratch_bytes > 0) b.scratch = tb.buffer("scratch", sizes.scratch_bytes);
  tb.rank_barrier();
  std::uint64_t flag_base = 0;
  for (std::uint32_t i = 0; i < p.iterations; ++i) flag_base += append_iteration(tb, p, ranks, sizes, b, i, flag_base);
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::collectives
