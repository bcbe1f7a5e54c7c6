#pragma once
// A lower bound on the work a trace asks for, from its programs alone, without replaying it:
// the operations its workgroups issue and the bytes their loads, stores and atomic ranges move.
// It lets the replay refuse an absurd trace (a loop count of 10^9 inside another, 10^12
// workgroups) before building anything (replay_limits.h).
//
// Loop counts and sizes are expressions of the workgroup id, the rank, loop counters and
// registers (expr.h). Each is bounded by interval arithmetic over every value those can take,
// so the bound holds for every workgroup, and a kernel of G workgroups does at least G times
// its program's bound. Constant loop counts multiply exactly; a count that depends on a
// register set inside the same loop counts as unknown, hence as at least 0. A lower bound never
// refuses a trace that would run within the limits; a trace that hides its size from it is
// still stopped at run time by --max-events / --max-wall.
#include <cstddef>
#include <cstdint>

#include "workloads/trace/trace.h"

namespace tessera::workloads::replay {

struct WorkBound {
  std::uint64_t operations = 0;   // every instruction but loop, end_loop and set; saturates at 2^64 - 1
  std::uint64_t bytes_moved = 0;  // bytes of load, store and atomic_add_range; saturates at 2^64 - 1
};

// Of every workgroup of one kernel of a validated trace (trace::validate).
WorkBound kernel_work_bound(const trace::Trace& trace, std::size_t kernel);

}  // namespace tessera::workloads::replay
