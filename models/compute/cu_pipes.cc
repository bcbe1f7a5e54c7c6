#include "models/compute/cu_pipes.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tessera::models::compute {

bool has_pipes(const ComputeSpec& spec) {
  const CuPipeRates& p = spec.pipes;
  return p.lds_bytes_per_clock > 0 || p.sfu_ops_per_clock > 0 || p.vector_ops_per_clock > 0 ||
         p.phase_latency_clocks() > 0;
}

double PipeCycles::busiest() const { return std::max({matrix, lds, sfu, vector}); }

namespace {

double cycles(double work, double per_clock) { return per_clock > 0 ? work / per_clock : 0.0; }

}  // namespace

PipeCycles pipe_cycles(double flops, Dtype dtype, const PipeDemand& demand, const ComputeSpec& spec) {
  if (!(flops >= 0) || !(demand.lds_bytes >= 0) || !(demand.sfu_ops >= 0) || !(demand.vector_ops >= 0) ||
      !(demand.phases >= 0)) {
    throw std::invalid_argument("a compute op's flops and pipe demands must be non-negative");
  }
  PipeCycles c;
  if (flops > 0) {
    const double per_clock = rate_of(spec.matrix_flops_per_clock_per_cu, dtype) * spec.pipes.warp_matrix_fraction;
    if (!(per_clock > 0)) {
      throw std::invalid_argument("no positive matrix rate for " + std::string(dtype_name(dtype)) +
                                  " (matrix_flops_per_clock_per_cu and pipes.warp_matrix_fraction must be > 0)");
    }
    c.matrix = flops / per_clock;
  }
  c.lds = cycles(demand.lds_bytes, spec.pipes.lds_bytes_per_clock);
  c.sfu = cycles(demand.sfu_ops, spec.pipes.sfu_ops_per_clock);
  c.vector = cycles(demand.vector_ops, spec.pipes.vector_ops_per_clock);
  return c;
}

double pipe_bound_exact_ps(double flops, Dtype dtype, const PipeDemand& demand, const ComputeSpec& spec,
                           std::uint32_t resident) {
  if (!(spec.clock_hz > 0)) throw std::invalid_argument("the clock must be positive");
  const double exposed = demand.phases * spec.pipes.phase_latency_clocks() / std::max<std::uint32_t>(resident, 1);
  return (pipe_cycles(flops, dtype, demand, spec).busiest() + exposed) / (spec.clock_hz / 1e12);
}

}  // namespace tessera::models::compute
