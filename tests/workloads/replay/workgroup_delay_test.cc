// The workgroup's delay op (trace::OpKind::kDelay, format version 7): the workgroup is busy for a
// given time and uses nothing, so a kernel whose workgroups all start with a delay of D ends
// exactly D later than the same kernel without it; read and written in both formats; refused in
// an older version and when negative.
#include <doctest/doctest.h>

#include <sstream>

#include "tests/support/test_systems.h"
#include "workloads/replay/replay.h"
#include "workloads/replay/replay_error.h"
#include "workloads/trace/builder.h"
#include "workloads/trace/trace_binary.h"
#include "workloads/trace/trace_text.h"

using namespace tessera::workloads::trace;
using tessera::sim::Tick;
using tessera::workloads::replay::ReplayOptions;
using tessera::workloads::replay::replay_trace;

namespace {

constexpr Tick kUs = 1'000'000;

// One kernel of 8 workgroups on one GPU: an optional delay, then a compute and a store.
Trace kernel(Expr delay_ps, bool with_delay) {
  TraceBuilder t(1);
  const auto x = t.buffer("x", 1 << 20);
  ProgramBuilder p("p");
  if (with_delay) p.delay(std::move(delay_ps));
  p.compute(2LL * 256 * 256 * 64).store(x, rank(), wg() * 4096, 4096);
  const auto prog = t.program(std::move(p));
  t.launch({"k", 0, 0, 8, prog, {}});
  t.sync_all();
  return std::move(t).build();
}

Tick makespan(const Trace& t) { return replay_trace(t, tessera::test::mi300x(1)).makespan_ps; }

std::string text_of(const Trace& t) {
  std::ostringstream out;
  write_trace_text(out, t);
  return out.str();
}

}  // namespace

TEST_CASE("a delay of every workgroup ends the kernel exactly that much later, a zero delay changes nothing") {
  const Tick bare = makespan(kernel(0, false));
  CHECK(makespan(kernel(Expr(static_cast<std::int64_t>(7 * kUs)), true)) == bare + 7 * kUs);
  CHECK(makespan(kernel(0, true)) == bare);
  // A delay that depends on the workgroup: the last one to finish sets the end.
  CHECK(makespan(kernel(wg() * static_cast<std::int64_t>(kUs), true)) == bare + 7 * kUs);
}

TEST_CASE("a trace with a delay is version 7, and reads back equal from text and from binary") {
  const Trace t = kernel(wg() * 1000 + 5, true);
  CHECK(t.version == 7u);
  CHECK(required_version(t) == kWorkgroupDelayVersion);
  const std::string text = text_of(t);
  CHECK(text.find(R"({"op":"delay","ps":")") != std::string::npos);
  std::istringstream in(text);
  const Trace back = read_trace_text(in, "t.jsonl");
  REQUIRE(back.programs.size() == 1);
  CHECK(back.programs[0].instrs[0].kind == OpKind::kDelay);
  CHECK(back.programs[0].instrs[0].a == t.programs[0].instrs[0].a);
  CHECK(text_of(back) == text);
  std::stringstream bytes;
  write_trace_binary(bytes, t);
  const Trace from_binary = read_trace_binary(bytes, "t.tsrt");
  CHECK(from_binary.programs[0].instrs[0].kind == OpKind::kDelay);
  CHECK(text_of(from_binary) == text);
}

TEST_CASE("a delay in a version 6 trace is refused at its line and key, a negative delay fails the replay") {
  const std::string text = R"({"tessera_trace": 6, "ranks": 1})" "\n"
                           R"({"program": "p", "ops": [{"op": "delay", "ps": 5}]})" "\n";
  std::istringstream in(text);
  try {
    read_trace_text(in, "old.jsonl");
    FAIL("a version 6 trace with a delay was read");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    CHECK(what.find("old.jsonl:2") != std::string::npos);
    CHECK(what.find("delay needs format version 7") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(makespan(kernel(Expr(-3), true)), doctest::Contains("negative delay -3 ps"),
                       tessera::workloads::replay::ReplayError);
}
