#include "workloads/collectives/collective_trace.h"

#include <fmt/format.h>

#include "workloads/collectives/collective_plan.h"
#include "workloads/collectives/collective_schema.h"
#include "workloads/collectives/collective_sizes.h"
#include "workloads/patterns/nccl_kernels.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/all_reduce.h"
#include "workloads/patterns/all_to_all.h"
#include "workloads/patterns/broadcast.h"
#include "workloads/patterns/reduce.h"
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

// What every collective spec of workloads/patterns/ takes alike: its buffers, its channels and
// pieces from the plan, its first flag and its kernel's name.
template <class Spec>
void set_common(Spec& spec, const CollectivePlan& plan, const Buffers& b, std::uint64_t flag_base,
                const std::string& name) {
  spec.input_buffer = b.input;
  spec.output_buffer = b.output;
  spec.channels = plan.channels;
  spec.chunk_bytes = plan.chunk_bytes;
  spec.flag_base = flag_base;
  spec.name = name;
  if constexpr (requires { spec.spread_rings; }) spec.spread_rings = plan.spread_rings;
}

// One iteration's kernels of Tessera's own collectives from flag_base on; returns the flags they use.
std::uint64_t append_tessera(trace::TraceBuilder& tb, const CollectiveParams& p, const CollectivePlan& plan,
                             std::uint32_t ranks, const CollectiveBuffers& sizes, const Buffers& b,
                             const std::string& name, std::uint64_t flag_base) {
  const bool ring = plan.algorithm == CollectiveAlgorithm::kRing;
  switch (p.op) {
    case CollectiveOp::kAllGather: {
      patterns::AllGatherSpec spec;
      spec.algorithm = ring ? AllGatherAlgorithm::kRing : AllGatherAlgorithm::kOneShot;
      spec.shard_bytes = sizes.input_bytes;
      set_common(spec, plan, b, flag_base, name);
      patterns::append_all_gather(tb, ranks, spec);
      return patterns::all_gather_flags(spec, ranks);
    }
    case CollectiveOp::kReduceScatter: {
      patterns::ReduceScatterSpec spec;
      spec.dtype = p.dtype;
      spec.scratch_buffer = b.scratch;
      spec.shard_bytes = sizes.output_bytes;
      set_common(spec, plan, b, flag_base, name);
      patterns::append_reduce_scatter(tb, ranks, spec);
      return patterns::reduce_scatter_flags(spec, ranks);
    }
    case CollectiveOp::kAllReduce: {
      patterns::AllReduceSpec spec;
      spec.algorithm = ring ? AllReduceAlgorithm::kRing : AllReduceAlgorithm::kOneShot;
      spec.dtype = p.dtype;
      spec.scratch_buffer = b.scratch;
      spec.bytes = p.size_bytes;
      set_common(spec, plan, b, flag_base, name);
      patterns::append_all_reduce(tb, ranks, spec);
      return patterns::all_reduce_flags(spec, ranks);
    }
    case CollectiveOp::kBroadcast: {
      patterns::BroadcastSpec spec;
      spec.algorithm = ring ? patterns::BroadcastAlgorithm::kRing : patterns::BroadcastAlgorithm::kOneShot;
      spec.bytes = p.size_bytes;
      set_common(spec, plan, b, flag_base, name);
      patterns::append_broadcast(tb, ranks, spec);
      return patterns::broadcast_flags(spec, ranks);
    }
    case CollectiveOp::kReduce: {
      patterns::ReduceSpec spec;
      spec.algorithm = ring ? patterns::ReduceAlgorithm::kRing : patterns::ReduceAlgorithm::kOneShot;
      spec.dtype = p.dtype;
      spec.scratch_buffer = b.scratch;
      spec.bytes = p.size_bytes;
      set_common(spec, plan, b, flag_base, name);
      patterns::append_reduce(tb, ranks, spec);
      return patterns::reduce_flags(spec, ranks);
    }
    case CollectiveOp::kAllToAll: {
      patterns::AllToAllSpec spec;
      spec.dtype = p.dtype;
      spec.bytes = p.size_bytes;
      set_common(spec, plan, b, flag_base, name);
      patterns::append_all_to_all(tb, ranks, spec);
      return patterns::all_to_all_flags(spec, ranks);
    }
  }
  return 0;
}

// One iteration's kernels from flag_base on; returns the flags they use.
std::uint64_t append_iteration(trace::TraceBuilder& tb, const CollectiveParams& p, const CollectivePlan& plan,
                               const models::SystemSpec& system, std::uint32_t ranks, const CollectiveBuffers& sizes, const Buffers& b,
                               std::uint32_t iteration, std::uint64_t flag_base) {
  // A program's name is unique in a trace, and each iteration's has its own flags.
  const std::string name = p.iterations == 1 ? op_name(p.op) : fmt::format("{}_{}", op_name(p.op), iteration);
  if (!plan.nccl) return append_tessera(tb, p, plan, ranks, sizes, b, name, flag_base);
  // NCCL's plan or RCCL's: RCCL's device code is NCCL's runRing / runTreeUpDown.
  patterns::NcclKernelSpec spec;
  spec.name = name;
  spec.op = p.op;
  spec.plan = *plan.nccl;
  spec.dtype = p.dtype;
  spec.size_bytes = p.size_bytes;
  spec.input_buffer = b.input;
  spec.output_buffer = b.output;
  spec.fifo_buffer = b.scratch;
  spec.flag_base = flag_base;
  spec.spread_rings = system.interconnect.topology == "full_mesh";
  spec.node_ranks = ranks > models::gpus_per_node(system) ? models::gpus_per_node(system) : 0;
  spec.kernel_overhead_ps = patterns::nccl_kernel_overhead_ps(system.gpu, spec.plan.protocol);
  patterns::append_nccl_collective(tb, ranks, spec);
  return patterns::nccl_flags(spec.plan);
}

}  // namespace

trace::Trace make_collective_trace(const CollectiveParams& p, const models::SystemSpec& system) {
  patterns::throw_if_problem("collective", check_against_system(p, system));
  const std::uint32_t ranks = ranks_of(p, system);
  const CollectivePlan plan = plan_of(p, system, ranks);
  const CollectiveBuffers sizes = buffers_of(p, plan, ranks);

  trace::TraceBuilder tb(ranks);
  Buffers b;
  b.input = tb.buffer("input", sizes.input_bytes);
  b.output = tb.buffer("output", sizes.output_bytes);
  if (sizes.scratch_bytes > 0) b.scratch = tb.buffer(plan.nccl ? "fifo" : "scratch", sizes.scratch_bytes);
  tb.rank_barrier();
  std::uint64_t flag_base = 0;
  const sim::Tick call_ps = p.host == CollectiveHost::kNone ? 0 : system.host.collective_call_ps;
  for (std::uint32_t i = 0; i < p.iterations; ++i) {
    if (call_ps > 0) {
      // One thread issues rank 0's call, then rank 1's, ...: rank r's first launch waits for
      // r + 1 calls, every later one for a whole round of R calls. A thread per rank: one call.
      for (std::uint32_t r = 0; r < ranks; ++r) {
        const std::uint64_t calls = p.host == CollectiveHost::kPerRank ? 1 : i == 0 ? r + 1 : ranks;
        tb.host_delay(r, calls * call_ps);
      }
    }
    flag_base += append_iteration(tb, p, plan, system, ranks, sizes, b, i, flag_base);
  }
  tb.sync_all();
  return std::move(tb).build();
}

}  // namespace tessera::workloads::collectives
