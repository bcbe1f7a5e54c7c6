// The structure a trace gives the compute model (format version 8): a compute op's pipe demands
// (lds_bytes, sfu_ops, vector_ops, phases) and a kernel's footprint (waves, registers, lds_bytes).
// With the system's pipe rates an op lasts as long as its busiest pipe needs
// (models/compute/cu_pipes.h), so a demand of twice the matrix time makes a one-workgroup kernel
// exactly one matrix time longer; a footprint that fills a CU's registers serialises the kernel's
// workgroups on it; both read and written in both formats, refused in an older version at their
// line and key.
#include <doctest/doctest.h>

#include <sstream>

#include "tests/support/test_systems.h"
#include "workloads/replay/replay.h"
#include "workloads/trace/builder.h"
#include "workloads/trace/trace_binary.h"
#include "workloads/trace/trace_text.h"

using namespace tessera::workloads::trace;
using tessera::sim::Tick;
using tessera::workloads::replay::replay_trace;

namespace {

// 2048 FLOP/clk x 2.1 GHz: 4,300,800 FLOP take exactly 1 us on one CU.
constexpr std::int64_t kOneUsOfFlops = 4'300'800;
// 128 B/clk x 2.1 GHz = 268.8 GB/s: 537,600 bytes take exactly 2 us.
constexpr std::int64_t kTwoUsOfLds = 537'600;

Trace one_workgroup(bool with_demand, std::uint32_t registers = 0, std::int64_t loaded_before = 0) {
  TraceBuilder t(1);
  const auto x = t.buffer("x", 1 << 20);
  ProgramBuilder p("p");
  if (loaded_before > 0) p.load(x, rank(), 0, loaded_before);
  if (with_demand) {
    p.compute(kOneUsOfFlops, tessera::models::compute::Dtype::kFp16, kTwoUsOfLds, Expr(0), Expr(0), Expr(0));
  } else {
    p.compute(kOneUsOfFlops);
  }
  p.store(x, rank(), 0, 4096);
  const auto prog = t.program(std::move(p));
  Kernel k{"k", 0, 0, 1, prog, {}};
  k.footprint.waves = registers > 0 ? 8 : 0;
  k.footprint.registers = registers;
  t.launch(std::move(k));
  t.sync_all();
  return std::move(t).build();
}

tessera::models::SystemSpec with_pipes() {
  tessera::models::SystemSpec s = tessera::test::mi300x(1);
  s.gpu.compute.pipes.lds_bytes_per_clock = 128;
  return s;
}

std::string text_of(const Trace& t) {
  std::ostringstream out;
  write_trace_text(out, t);
  return out.str();
}

}  // namespace

TEST_CASE("an op bound by shared memory lasts its shared-memory time, on a system with pipe rates only") {
  const tessera::models::SystemSpec pipes = with_pipes();
  const Tick bare = replay_trace(one_workgroup(false), pipes).makespan_ps;
  CHECK(replay_trace(one_workgroup(true), pipes).makespan_ps == bare + 1'000'000);
  // Without pipe rates the demand is not modelled: the op runs at the matrix rate.
  CHECK(replay_trace(one_workgroup(true), tessera::test::mi300x(1)).makespan_ps == bare);
}

TEST_CASE("where loads pass through the shared-memory pipe, the bytes loaded before an op with demands add to it") {
  tessera::models::SystemSpec pipes = with_pipes();
  const std::int64_t loaded = kTwoUsOfLds / 2;  // 1 us of the pipe
  const Tick apart = replay_trace(one_workgroup(true, 0, loaded), pipes).makespan_ps;
  pipes.gpu.compute.pipes.loads_through_lds = true;
  CHECK(replay_trace(one_workgroup(true, 0, loaded), pipes).makespan_ps == apart + 1'000'000);
  // An op without demands stays at the matrix rate: its loads are not charged to a pipe it does not model.
  CHECK(replay_trace(one_workgroup(false, 0, loaded), pipes).makespan_ps ==
        replay_trace(one_workgroup(false, 0, loaded), with_pipes()).makespan_ps);
}

TEST_CASE("a trace with pipe demands is version 8, and reads back equal from text and from binary") {
  const Trace t = one_workgroup(true);
  CHECK(t.version == kComputeDemandVersion);
  CHECK(one_workgroup(false).version < kComputeDemandVersion);
  const std::string text = text_of(t);
  CHECK(text.find(R"("lds_bytes":537600)") != std::string::npos);
  CHECK(text.find("sfu_ops") == std::string::npos);  // a zero demand is not written
  std::istringstream in(text);
  const Trace back = read_trace_text(in, "t.jsonl");
  CHECK(back.programs.at(0).instrs.at(0).b == Expr(kTwoUsOfLds));
  CHECK(text_of(back) == text);
  std::stringstream bytes;
  write_trace_binary(bytes, t);
  CHECK(text_of(read_trace_binary(bytes, "t.tsrt")) == text);
}

TEST_CASE("pipe demands in a version 7 trace are refused at their line and key") {
  const std::string text = R"({"tessera_trace": 7, "ranks": 1})" "\n"
                           R"({"program": "p", "ops": [{"op": "compute", "flops": 5, "vector_ops": 8}]})" "\n";
  std::istringstream in(text);
  try {
    read_trace_text(in, "old.jsonl");
    FAIL("a version 7 trace with pipe demands was read");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    CHECK(what.find("old.jsonl:2") != std::string::npos);
    CHECK(what.find("vector_ops") != std::string::npos);
    CHECK(what.find("needs format version 8") != std::string::npos);
  }
  Trace t = one_workgroup(true);
  t.version = 7;
  REQUIRE(validate(t).has_value());
  CHECK(validate(t)->find("pipe demands need format version 8") != std::string::npos);
}

TEST_CASE("a kernel whose footprint fills a CU's registers runs its workgroups on a CU one after the other") {
  // One CU per die (8 dies): 32 workgroups, four per CU, each busy 1 us (a delay: no unit shared), of 8 waves x 64
  // lanes x 128 registers = 65,536 registers, on CUs of 65,536: one at a time per CU, four rounds of 1 us, where
  // without a footprint the four of a CU run at once.
  tessera::models::SystemSpec s = tessera::test::mi300x(1);
  s.gpu.compute.compute_units_per_die = 1;
  s.gpu.compute.occupancy = {65536, 0, 0, 64};
  const auto kernel = [](std::uint32_t registers) {
    TraceBuilder t(1);
    ProgramBuilder p("p");
    p.delay(Expr(1'000'000));
    const auto prog = t.program(std::move(p));
    Kernel k{"k", 0, 0, 32, prog, {}};
    k.footprint.waves = 8;
    k.footprint.registers = registers;
    t.launch(std::move(k));
    t.sync_all();
    return std::move(t).build();
  };
  const Tick open = replay_trace(kernel(0), s).makespan_ps;
  const Tick held = replay_trace(kernel(128), s).makespan_ps;
  CHECK(held - open == 3'000'000 + 3 * 3 * s.gpu.dispatch.workgroup_dispatch_ps);
  // A footprint that fits nowhere fails the replay with the resource named.
  CHECK_THROWS_WITH(replay_trace(kernel(256), s), doctest::Contains("does not fit a CU's registers"));
}

TEST_CASE("a kernel's footprint is version 8, reads back from text and binary, and is refused in version 7") {
  const Trace t = one_workgroup(false, 96);
  CHECK(t.version == kKernelFootprintVersion);
  const std::string text = text_of(t);
  CHECK(text.find(R"("waves":8,"registers":96)") != std::string::npos);
  std::istringstream in(text);
  const Trace back = read_trace_text(in, "t.jsonl");
  CHECK(back.kernels.at(0).footprint.registers == 96);
  CHECK(back.kernels.at(0).footprint.waves == 8);
  std::stringstream bytes;
  write_trace_binary(bytes, t);
  CHECK(text_of(read_trace_binary(bytes, "t.tsrt")) == text);
  const std::string old = R"({"tessera_trace": 7, "ranks": 1})" "\n"
                          R"({"program": "p", "ops": [{"op": "compute", "flops": 5}]})" "\n"
                          R"({"kernel": "k", "rank": 0, "grid": 1, "program": "p", "registers": 64})" "\n";
  std::istringstream old_in(old);
  CHECK_THROWS_WITH(read_trace_text(old_in, "old.jsonl"), doctest::Contains("old.jsonl:3: registers"));
}
