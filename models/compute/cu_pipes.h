#pragma once
// What a compute op asks of a CU besides its matrix unit, and how long the CU's busiest pipe
// needs for it: the structural compute model's per-op bound (models/compute/README.md).
//
// A workgroup's inner-loop step does more than matrix work: its operands reach the matrix
// units through the CU's shared memory (LDS), a softmax runs on the special-function and the
// vector units. Each of these pipes has a rate per CU and clock (ComputeSpec::pipes); an op that
// tells what it moves through them (its PipeDemand) needs P cycles of its busiest pipe:
//
//   P = max(flops / (matrix rate x warp_matrix_fraction), lds_bytes / lds rate,
//           sfu_ops / sfu rate, vector_ops / vector rate)
//
// The pipes of one CU work in parallel (warps of the CU's workgroups issue to different units
// at once), so their times do not add. Each of the op's `phases` (stretches between workgroup
// barriers) also exposes a dependent chain that the workgroup's own waves cannot overlap: a
// shared-memory load, a matrix instruction and the barrier, L = lds + matrix + barrier latency.
// With n workgroups resident on the CU, the others fill those gaps, so an op's step is
//
//   T(n) = n P + phases L   (cycles, per workgroup, the n sharing the CU's busiest pipe)
//
// i.e. each op asks for P + phases L / n of the CU, which MatrixUnit's processor sharing
// multiplies by the n jobs sharing it. The matrix rate here is the warp-level instructions'
// (fragments through shared memory); matrix_efficiency is not applied (it is the fallback for
// ops without demands). models/compute/README.md checks the model on the suite's inner loops.
#include "models/compute/compute_timing.h"

namespace tessera::models::compute {

struct PipeDemand {
  double lds_bytes = 0;   // shared-memory (LDS) bytes read and written
  double sfu_ops = 0;     // transcendental lane-operations (exp2, reciprocal, ...)
  double vector_ops = 0;  // other vector lane-operations (fp32 add, multiply, max, fma)
  double phases = 0;      // barrier-delimited phases, each exposing one dependent chain

  bool any() const { return lds_bytes > 0 || sfu_ops > 0 || vector_ops > 0 || phases > 0; }
};

// Whether the system gives any pipe rate: without one, demands are ignored and ops run at the
// matrix rate alone (as with no demand).
bool has_pipes(const ComputeSpec& spec);

// Clock cycles the op needs on each pipe of one CU and the busiest of them (P above). A pipe whose
// rate is 0 in the spec is not modelled (0 cycles). Throws std::invalid_argument for a negative
// demand, or a matrix op (flops > 0) on a dtype without a positive matrix rate.
struct PipeCycles {
  double matrix = 0;
  double lds = 0;
  double sfu = 0;
  double vector = 0;
  double busiest() const;
};
PipeCycles pipe_cycles(double flops, Dtype dtype, const PipeDemand& demand, const ComputeSpec& spec);

// The op's share of its CU with `resident` workgroups on it (at least 1): P + phases L / resident
// cycles at the clock, in ps (exact, not rounded).
double pipe_bound_exact_ps(double flops, Dtype dtype, const PipeDemand& demand, const ComputeSpec& spec,
                           std::uint32_t resident);

}  // namespace tessera::models::compute
