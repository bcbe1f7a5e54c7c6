#include "workloads/collectives/collective_figures.h"

#include "workloads/collectives/collective_sizes.h"

namespace tessera::workloads::collectives {

double bus_bandwidth_factor(CollectiveOp op, std::uint32_t ranks) {
  if (ranks == 0) return 0.0;
  const double n = ranks;
  switch (op) {
    case CollectiveOp::kAllReduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll: return (n - 1.0) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce: return n > 1 ? 1.0 : 0.0;
  }
  return 0.0;
}

double algorithm_bandwidth_GBps(std::uint64_t size_bytes, double time_us) {
  // bytes / us = 1e6 bytes/s = 1e-3 GB/s.
  return time_us > 0 ? static_cast<double>(size_bytes) / time_us / 1e3 : 0.0;
}

CollectiveFigures figures_of(const CollectiveParams& params, const CollectivePlan& plan, std::uint32_t ranks,
                             sim::Tick makespan_ps) {
  CollectiveFigures f;
  f.op = op_name(params.op);
  f.library = library_name(params.library);
  f.algorithm = algorithm_name(plan.algorithm);
  f.channels = plan.channels;
  if (plan.nccl) {
    // NCCL's or RCCL's plan: the protocol it chose and the library's own cost-model time.
    f.protocol = patterns::nccl_protocol_name(plan.nccl->protocol);
    f.library_model_time_us = plan.nccl->model_time_us;
  }
  f.dtype = std::string(models::compute::dtype_name(params.dtype));
  f.size_bytes = params.size_bytes;
  f.count = element_count(params);
  f.ranks = ranks;
  f.iterations = params.iterations;
  f.time_us = static_cast<double>(makespan_ps) / 1e6 / static_cast<double>(params.iterations);
  f.algbw_GBps = algorithm_bandwidth_GBps(params.size_bytes, f.time_us);
  f.busbw_GBps = f.algbw_GBps * bus_bandwidth_factor(params.op, ranks);
  return f;
}

}  // namespace tessera::workloads::collectives
