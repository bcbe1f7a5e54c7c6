#pragma once
// Test helpers for traces: field-by-field comparison (the structs have no operator==) and a
// sample trace that uses every op and gives every field a non-default value somewhere.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "workloads/trace/builder.h"
#include "workloads/trace/trace.h"

namespace doctest {
template <>
struct StringMaker<tessera::workloads::trace::Expr> {
  static String convert(const tessera::workloads::trace::Expr& e) { return tessera::workloads::trace::to_string(e).c_str(); }
};
}  // namespace doctest

namespace tessera::workloads::trace::test {

inline bool same_instr(const Instr& x, const Instr& y) {
  return x.kind == y.kind && x.dtype == y.dtype && x.compare == y.compare && x.scope == y.scope && x.target == y.target &&
         x.buffer == y.buffer && x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d && x.e == y.e;
}

// Checks every field; reports the first difference of each part with its place.
inline void check_same(const Trace& x, const Trace& y) {
  CHECK(x.version == y.version);
  CHECK(x.ranks == y.ranks);
  REQUIRE(x.buffers.size() == y.buffers.size());
  for (std::size_t i = 0; i < x.buffers.size(); ++i) {
    CHECK(x.buffers[i].name == y.buffers[i].name);
    CHECK(x.buffers[i].bytes == y.buffers[i].bytes);
    CHECK(x.buffers[i].coherence == y.buffers[i].coherence);
  }
  REQUIRE(x.programs.size() == y.programs.size());
  for (std::size_t p = 0; p < x.programs.size(); ++p) {
    CHECK(x.programs[p].name == y.programs[p].name);
    REQUIRE(x.programs[p].instrs.size() == y.programs[p].instrs.size());
    for (std::size_t i = 0; i < x.programs[p].instrs.size(); ++i) {
      CHECK_MESSAGE(same_instr(x.programs[p].instrs[i], y.programs[p].instrs[i]), "program ", p, " instruction ", i);
    }
  }
  REQUIRE(x.kernels.size() == y.kernels.size());
  for (std::size_t k = 0; k < x.kernels.size(); ++k) {
    const Kernel& a = x.kernels[k];
    const Kernel& b = y.kernels[k];
    CHECK(a.name == b.name);
    CHECK(a.rank == b.rank);
    CHECK(a.stream == b.stream);
    CHECK(a.grid == b.grid);
    CHECK(a.program == b.program);
    CHECK(a.cu_first == b.cu_first);
    CHECK(a.cu_count == b.cu_count);
    REQUIRE(a.args.size() == b.args.size());
    for (std::size_t i = 0; i < a.args.size(); ++i) CHECK(a.args[i] == b.args[i]);
  }
  REQUIRE(x.host.size() == y.host.size());
  for (std::size_t r = 0; r < x.host.size(); ++r) {
    REQUIRE(x.host[r].size() == y.host[r].size());
    for (std::size_t i = 0; i < x.host[r].size(); ++i) {
      CHECK(x.host[r][i].op == y.host[r][i].op);
      CHECK(x.host[r][i].kernel == y.host[r][i].kernel);
      CHECK(x.host[r][i].delay_ps == y.host[r][i].delay_ps);
    }
  }
}

// Three ranks; every op kind (so it is a version-2 trace), dtype, compare and scope that a
// text writer must name; nested
// loops; registers; kernel arguments; CU ranges; launches, syncs and barriers.
inline Trace sample_trace() {
  using models::compute::Dtype;
  using models::sync::Compare;
  TraceBuilder t(3);
  const auto a = t.buffer("A", 1 << 20);
  const auto flags = t.buffer("flags area", 4096);
  ProgramBuilder p("everything");
  p.set(2, div(wg(), 4) * 3 + 1)
      .set(1, rank() + 1)
      .loop(reg(0))
      .compute(wg() * 1000 + 5, Dtype::kFp8)
      .compute(2'000'000'000'000LL, Dtype::kFp32)
      .load(a, mod(reg(1), 3), loop(0) * 4096 - num_wg() + 7, 4096)
      .loop(div(reg(2), 2))
      .store(a, rank(), mod(div(wg(), 3), 5) * -64 + loop(1), num_ranks() * 2)
      .end_loop()
      .end_loop()
      .loop(0)
      .compute(1, Dtype::kBf16)
      .end_loop()
      .atomic_add(0, wg(), 1)
      .atomic_add_range(a, mod(reg(1), 3), wg() * 64 + 128, 64, Dtype::kBf16)
      .atomic_xchg(rank(), 7, reg(3))
      .release(mod(reg(1), 3), wg() + 100, -1)
      .wait(rank(), wg() + 100, Compare::kEq, 1)
      .wait(0, 3, Compare::kLt, 9, flags, wg() * 8, 8)
      .wait(1, 4, Compare::kNe, 0)
      .wait(1, 4, Compare::kGt, 0)
      .wait(1, 4, Compare::kLe, 0)
      .wait(1, 4, Compare::kGe, 0)
      .barrier(BarrierScope::kWorkgroup)
      .barrier(BarrierScope::kDevice, 2)
      .barrier(BarrierScope::kAllRanks, wg())
      .set(7, -5)
      .load_async(a, rank(), wg() * 64, 256, 3)
      .wait_load(3);
  const auto prog = t.program(std::move(p));
  ProgramBuilder q("small");
  q.compute(10);
  const auto small = t.program(std::move(q));
  for (std::uint32_t r = 0; r < 3; ++r) {
    Kernel k{"main", r, r % 2, 304 + r, prog, {div(wg(), 8) + 1, rank() * 100 - num_ranks(), 3}, 0, 0};
    if (r == 1) {
      k.cu_first = 8;
      k.cu_count = 16;
    }
    t.launch(std::move(k));
  }
  t.sync_all();
  t.rank_barrier();
  t.launch({"tail", 2, 1, 1, small, {}, 0, 0});
  t.sync(2);
  t.rank_barrier();
  return std::move(t).build();
}

// Two ranks, version 5: host delays on one rank and on both (with zero and with the longest
// delay), between launches, syncs and a barrier.
inline Trace delay_trace() {
  TraceBuilder t(2);
  ProgramBuilder p("p");
  p.compute(1000);
  const auto prog = t.program(std::move(p));
  t.launch({"a", 0, 0, 4, prog, {}, 0, 0});
  t.host_delay(0, 10'000'000);
  t.launch({"b", 0, 0, 4, prog, {}, 0, 0});
  t.host_delay_all(0);
  t.sync_all();
  t.rank_barrier();
  t.host_delay(1, kMaxHostDelayPs);
  t.launch({"c", 1, 1, 2, prog, {}, 0, 0});
  return std::move(t).build();
}

}  // namespace tessera::workloads::trace::test
