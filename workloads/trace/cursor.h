#pragma once
// Steps one workgroup through its program: runs the control instructions (loop, end_loop,
// set) itself and stops at each operation, with every field evaluated. The replay drives one
// cursor per live workgroup; tests and `trace inspect` walk programs with it, untimed.
#include <array>
#include <cstdint>
#include <vector>

#include "workloads/trace/trace.h"

namespace tessera::workloads::trace {

// A program with each loop's matching end_loop precomputed.
struct CompiledProgram {
  const Program* program = nullptr;
  std::vector<std::uint32_t> loop_end;  // for a loop instruction: index of its end_loop

  explicit CompiledProgram(const Program& p);
};

// One operation with every field evaluated. The fields a..e are the instruction's operands in
// the order the trace format stores them (trace.h); read them through the accessors named for
// what they mean in each kind of operation.
struct Op {
  OpKind kind = OpKind::kCompute;
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  models::sync::Compare compare = models::sync::Compare::kGe;
  BarrierScope scope = BarrierScope::kWorkgroup;
  std::uint32_t buffer = kNoBuffer;
  std::uint8_t slot = 0;  // load_async, wait_load
  std::int64_t a = 0, b = 0, c = 0, d = 0, e = 0;
  std::uint32_t instr = 0;  // index in the program, for messages

  // compute (the pipe demands are 0 when not given)
  std::int64_t flops() const { return a; }
  std::int64_t lds_bytes() const { return b; }
  std::int64_t sfu_ops() const { return c; }
  std::int64_t vector_ops() const { return d; }
  std::int64_t phases() const { return e; }
  // load, load_async, store, atomic_add_range: bytes [offset, offset + bytes) of rank's copy of `buffer`
  std::int64_t rank() const { return a; }
  std::int64_t offset() const { return b; }
  std::int64_t bytes() const { return c; }
  // atomic_add, atomic_xchg, release, wait: the flag (flag_rank, flag_id) and the operand, the
  // value stored, or the value waited for
  std::int64_t flag_rank() const { return a; }
  std::int64_t flag_id() const { return b; }
  std::int64_t value() const { return c; }
  // wait: the range of this rank's copy of `buffer` it acquires (kNoBuffer: none)
  std::int64_t acquire_offset() const { return d; }
  std::int64_t acquire_bytes() const { return e; }
  // barrier
  std::int64_t barrier_id() const { return a; }
  // delay
  std::int64_t delay_ps() const { return a; }
};

class Cursor {
 public:
  Cursor() = default;
  // Workgroup `wg` of `kernel` on a trace of `ranks` ranks: registers from the kernel's arguments.
  Cursor(const CompiledProgram& program, const Kernel& kernel, std::uint64_t wg, std::uint32_t ranks);

  // The next operation, or false when the program has ended. Throws std::out_of_range, naming
  // the program and instruction, when a loop count evaluates negative or an expression leaves
  // the 64-bit range.
  bool next(Op& out);

  const VarValues& vars() const { return vars_; }

 private:
  bool step(Op& out);

  struct Frame {
    std::uint32_t body = 0;        // first instruction of the body
    std::int64_t remaining = 0;    // iterations left after the current one
  };
  const CompiledProgram* program_ = nullptr;
  VarValues vars_{};
  std::array<Frame, kNumLoopVars> frames_{};
  int depth_ = 0;
  std::uint32_t pc_ = 0;
};

}  // namespace tessera::workloads::trace
