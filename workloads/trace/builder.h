#pragma once
// Writing traces from C++ (the pattern generators): a fluent program builder and a trace
// builder that keeps kernels and host commands consistent.
//
//   TraceBuilder t(ranks);
//   const auto a = t.buffer("A", m * k * 2);
//   ProgramBuilder p("gemm_tile");
//   p.set(0, div(wg(), tiles_n)).set(1, mod(wg(), tiles_n))
//    .loop(k / 64)
//      .load(a, rank(), reg(0) * (256 * k * 2) + loop(0) * 128, 256 * 128)
//      .compute(2.0 * 256 * 256 * 64)
//    .end_loop();
//   const auto prog = t.program(p);
//   for (r...) t.launch(r, {"gemm", r, 0, tiles, prog, {}});
//   Trace trace = t.build();   // validated
#include <cstdint>
#include <string>
#include <utility>

#include "workloads/trace/trace.h"

namespace tessera::workloads::trace {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string name) { program_.name = std::move(name); }

  ProgramBuilder& compute(Expr flops, models::compute::Dtype dtype = models::compute::Dtype::kFp16) {
    Instr in;
    in.kind = OpKind::kCompute;
    in.dtype = dtype;
    in.a = std::move(flops);
    return add(std::move(in));
  }
  // Matrix work with what it asks of the CU's other pipes (format version 8): shared-memory bytes,
  // transcendental and other vector lane-operations, and its barrier-delimited phases.
  ProgramBuilder& compute(Expr flops, models::compute::Dtype dtype, Expr lds_bytes, Expr sfu_ops, Expr vector_ops,
                          Expr phases) {
    compute(std::move(flops), dtype);
    Instr& in = program_.instrs.back();
    in.b = std::move(lds_bytes);
    in.c = std::move(sfu_ops);
    in.d = std::move(vector_ops);
    in.e = std::move(phases);
    return *this;
  }
  // The workgroup is busy for `ps` picoseconds, using nothing (format version 7).
  ProgramBuilder& delay(Expr ps) {
    Instr in;
    in.kind = OpKind::kDelay;
    in.a = std::move(ps);
    return add(std::move(in));
  }
  ProgramBuilder& load(std::uint32_t buffer, Expr owner_rank, Expr offset, Expr bytes) {
    return memory(OpKind::kLoad, buffer, std::move(owner_rank), std::move(offset), std::move(bytes));
  }
  // A load that does not block the workgroup (a prefetch into registers); wait_load(slot) waits
  // for it. Slots 0..kNumLoadSlots-1.
  ProgramBuilder& load_async(std::uint32_t buffer, Expr owner_rank, Expr offset, Expr bytes, std::uint8_t slot) {
    memory(OpKind::kLoadAsync, buffer, std::move(owner_rank), std::move(offset), std::move(bytes));
    program_.instrs.back().target = slot;
    return *this;
  }
  ProgramBuilder& wait_load(std::uint8_t slot) {
    Instr in;
    in.kind = OpKind::kWaitLoad;
    in.target = slot;
    return add(std::move(in));
  }
  ProgramBuilder& store(std::uint32_t buffer, Expr owner_rank, Expr offset, Expr bytes) {
    return memory(OpKind::kStore, buffer, std::move(owner_rank), std::move(offset), std::move(bytes));
  }
  // Adds `bytes` bytes of `dtype` elements into `buffer`'s copy on `owner_rank`, atomically at
  // its memory side (a reduction into a peer's or this GPU's memory, e.g. a GEMM tile).
  ProgramBuilder& atomic_add_range(std::uint32_t buffer, Expr owner_rank, Expr offset, Expr bytes,
                                   models::compute::Dtype dtype = models::compute::Dtype::kFp16) {
    Instr in;
    in.kind = OpKind::kAtomicAddRange;
    in.dtype = dtype;
    in.buffer = buffer;
    in.a = std::move(owner_rank);
    in.b = std::move(offset);
    in.c = std::move(bytes);
    return add(std::move(in));
  }
  ProgramBuilder& atomic_add(Expr flag_rank, Expr flag_id, Expr operand) {
    return flag(OpKind::kAtomicAdd, std::move(flag_rank), std::move(flag_id), std::move(operand));
  }
  ProgramBuilder& atomic_xchg(Expr flag_rank, Expr flag_id, Expr value) {
    return flag(OpKind::kAtomicXchg, std::move(flag_rank), std::move(flag_id), std::move(value));
  }
  ProgramBuilder& release(Expr flag_rank, Expr flag_id, Expr value) {
    return flag(OpKind::kRelease, std::move(flag_rank), std::move(flag_id), std::move(value));
  }
  // Spin until flag <compare> value; then, when `acquire_buffer` is given, acquire that range
  // of this rank's copy.
  ProgramBuilder& wait(Expr flag_rank, Expr flag_id, models::sync::Compare compare, Expr value,
                       std::uint32_t acquire_buffer = kNoBuffer, Expr acquire_offset = 0, Expr acquire_bytes = 0) {
    Instr in;
    in.kind = OpKind::kWait;
    in.compare = compare;
    in.a = std::move(flag_rank);
    in.b = std::move(flag_id);
    in.c = std::move(value);
    in.buffer = acquire_buffer;
    in.d = std::move(acquire_offset);
    in.e = std::move(acquire_bytes);
    return add(std::move(in));
  }
  ProgramBuilder& barrier(BarrierScope scope, Expr id = 0) {
    Instr in;
    in.kind = OpKind::kBarrier;
    in.scope = scope;
    in.a = std::move(id);
    return add(std::move(in));
  }
  ProgramBuilder& loop(Expr count) {
    Instr in;
    in.kind = OpKind::kLoop;
    in.a = std::move(count);
    return add(std::move(in));
  }
  ProgramBuilder& end_loop() {
    Instr in;
    in.kind = OpKind::kEndLoop;
    return add(std::move(in));
  }
  ProgramBuilder& set(std::uint8_t reg_index, Expr value) {
    Instr in;
    in.kind = OpKind::kSet;
    in.target = reg_index;
    in.a = std::move(value);
    return add(std::move(in));
  }

  Program build() && { return std::move(program_); }
  const Program& program() const { return program_; }

 private:
  ProgramBuilder& add(Instr in) {
    program_.instrs.push_back(std::move(in));
    return *this;
  }
  ProgramBuilder& memory(OpKind kind, std::uint32_t buffer, Expr rank, Expr offset, Expr bytes) {
    Instr in;
    in.kind = kind;
    in.buffer = buffer;
    in.a = std::move(rank);
    in.b = std::move(offset);
    in.c = std::move(bytes);
    return add(std::move(in));
  }
  ProgramBuilder& flag(OpKind kind, Expr rank, Expr id, Expr value) {
    Instr in;
    in.kind = kind;
    in.a = std::move(rank);
    in.b = std::move(id);
    in.c = std::move(value);
    return add(std::move(in));
  }

  Program program_;
};

class TraceBuilder {
 public:
  explicit TraceBuilder(std::uint32_t ranks) {
    trace_.ranks = ranks;
    trace_.host.resize(ranks);
  }

  std::uint32_t buffer(std::string name, std::uint64_t bytes, Coherence coherence = Coherence::kCoarse) {
    trace_.buffers.push_back({std::move(name), bytes, coherence});
    return static_cast<std::uint32_t>(trace_.buffers.size() - 1);
  }
  std::uint32_t program(ProgramBuilder builder) {
    trace_.programs.push_back(std::move(builder).build());
    return static_cast<std::uint32_t>(trace_.programs.size() - 1);
  }
  // Adds the kernel and a launch command on its rank's host; returns the kernel index.
  std::uint32_t launch(Kernel kernel) {
    const std::uint32_t rank = kernel.rank;
    trace_.kernels.push_back(std::move(kernel));
    const auto id = static_cast<std::uint32_t>(trace_.kernels.size() - 1);
    trace_.host.at(rank).push_back({HostOp::kLaunch, id});
    return id;
  }
  void sync(std::uint32_t rank) { trace_.host.at(rank).push_back({HostOp::kSync, 0}); }
  void sync_all() {
    for (std::uint32_t r = 0; r < trace_.ranks; ++r) sync(r);
  }
  void rank_barrier() {
    for (std::uint32_t r = 0; r < trace_.ranks; ++r) trace_.host[r].push_back({HostOp::kRankBarrier, 0});
  }
  // The host of `rank` is busy for `delay_ps` before its next command (host-side work between
  // launches); its streams go on meanwhile. Makes the trace version 5.
  void host_delay(std::uint32_t rank, std::uint64_t delay_ps) {
    trace_.host.at(rank).push_back({HostOp::kDelay, 0, delay_ps});
  }
  void host_delay_all(std::uint64_t delay_ps) {
    for (std::uint32_t r = 0; r < trace_.ranks; ++r) host_delay(r, delay_ps);
  }

  // Sets the trace's version to required_version (the lowest that holds it); throws
  // std::invalid_argument with validate()'s message when the trace is malformed.
  Trace build() &&;

 private:
  Trace trace_;
};

}  // namespace tessera::workloads::trace
