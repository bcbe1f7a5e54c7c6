// The cursor: control instructions run inside it, operations come out with their fields
// evaluated for this workgroup.
#include <doctest/doctest.h>

#include <vector>

#include "tests/workloads/trace/trace_test_support.h"
#include "workloads/trace/builder.h"
#include "workloads/trace/cursor.h"

using namespace tessera::workloads::trace;

namespace {

// Every operation workgroup `wg` of `kernel` executes.
std::vector<Op> run(const Program& program, const Kernel& kernel, std::uint64_t wg, std::uint32_t ranks = 2) {
  const CompiledProgram compiled(program);
  Cursor cursor(compiled, kernel, wg, ranks);
  std::vector<Op> ops;
  for (Op op; cursor.next(op);) ops.push_back(op);
  return ops;
}

Kernel kernel_of(std::uint32_t rank = 0, std::uint64_t grid = 16, std::vector<Expr> args = {}) {
  // Aggregate initialisation (assigning the name trips a false -Wrestrict in GCC 12).
  return Kernel{"k", rank, 0, grid, 0, std::move(args), 0, 0};
}

}  // namespace

TEST_CASE("nested loops run the body count times with i0 outer and i1 inner") {
  ProgramBuilder p("nested");
  p.loop(2).loop(3).load(0, rank(), loop(0) * 10 + loop(1), 64).end_loop().compute(1).end_loop();
  const std::vector<Op> ops = run(std::move(p).build(), kernel_of(), 0);
  std::vector<std::int64_t> offsets;
  std::vector<OpKind> kinds;
  for (const Op& op : ops) {
    kinds.push_back(op.kind);
    if (op.kind == OpKind::kLoad) offsets.push_back(op.b);
  }
  CHECK(offsets == std::vector<std::int64_t>{0, 1, 2, 10, 11, 12});
  CHECK(kinds.size() == 8);
  CHECK(kinds[3] == OpKind::kCompute);
  CHECK(kinds[7] == OpKind::kCompute);
  CHECK(ops[0].instr == 2);  // the index of the load in the program
}

TEST_CASE("a loop of count zero skips its body, nested loops included") {
  ProgramBuilder p("skip");
  p.compute(1).loop(0).store(0, 0, 0, 8).loop(5).load(0, 0, 0, 8).end_loop().end_loop().compute(2);
  const std::vector<Op> ops = run(std::move(p).build(), kernel_of(), 0);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].a == 1);
  CHECK(ops[1].a == 2);
}

TEST_CASE("a loop count may depend on the workgroup, a negative count throws") {
  ProgramBuilder p("by_wg");
  p.loop(wg() - 2).compute(loop(0)).end_loop();
  const Program prog = std::move(p).build();
  CHECK(run(prog, kernel_of(), 5).size() == 3);
  CHECK(run(prog, kernel_of(), 2).empty());
  CHECK_THROWS_AS(run(prog, kernel_of(), 1), std::out_of_range);
}

TEST_CASE("set overwrites a register for the instructions after it, also inside loops") {
  ProgramBuilder p("regs");
  p.set(0, wg() * 2).store(0, 0, reg(0), 8).loop(3).set(1, reg(1) + loop(0) + 1).compute(reg(1)).end_loop();
  const std::vector<Op> ops = run(std::move(p).build(), kernel_of(), 7);
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].b == 14);
  // r1 = r1 + i0 + 1 each time: 1, then 3, then 6.
  CHECK(ops[1].a == 1);
  CHECK(ops[2].a == 3);
  CHECK(ops[3].a == 6);
}

TEST_CASE("kernel arguments fill r0.. at workgroup start from wg, nwg, rank and nranks") {
  ProgramBuilder p("args");
  p.compute(reg(0)).compute(reg(1)).compute(reg(2)).compute(num_wg() + num_ranks());
  const Kernel k = kernel_of(1, 40, {div(wg(), 8), rank() * 100 + 5, num_wg() - wg()});
  const std::vector<Op> ops = run(std::move(p).build(), k, 17, 4);
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].a == 2);
  CHECK(ops[1].a == 105);
  CHECK(ops[2].a == 23);
  CHECK(ops[3].a == 44);
}

TEST_CASE("every field of an operation is evaluated and passed through") {
  ProgramBuilder p("fields");
  p.wait(rank() + 1, wg() + 100, tessera::models::sync::Compare::kEq, 3, 1, wg() * 64, 64)
      .barrier(BarrierScope::kAllRanks, 9)
      .compute(5, tessera::models::compute::Dtype::kFp8);
  const std::vector<Op> ops = run(std::move(p).build(), kernel_of(1), 2);
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].kind == OpKind::kWait);
  CHECK(ops[0].a == 2);
  CHECK(ops[0].b == 102);
  CHECK(ops[0].c == 3);
  CHECK(ops[0].compare == tessera::models::sync::Compare::kEq);
  CHECK(ops[0].buffer == 1);
  CHECK(ops[0].d == 128);
  CHECK(ops[0].e == 64);
  CHECK(ops[1].scope == BarrierScope::kAllRanks);
  CHECK(ops[1].a == 9);
  CHECK(ops[2].dtype == tessera::models::compute::Dtype::kFp8);
}

TEST_CASE("the sample trace walks to the end for every workgroup") {
  const Trace t = test::sample_trace();
  std::vector<CompiledProgram> compiled;
  for (const Program& p : t.programs) compiled.emplace_back(p);
  std::uint64_t ops = 0;
  for (const Kernel& k : t.kernels) {
    for (std::uint64_t wg = 0; wg < k.grid; ++wg) {
      Cursor c(compiled[k.program], k, wg, t.ranks);
      for (Op op; c.next(op);) ++ops;
    }
  }
  CHECK(ops > 0);
}
