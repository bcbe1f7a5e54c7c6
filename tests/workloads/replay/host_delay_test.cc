// The host's delay command (trace::HostOp::kDelay) in the replay: the host is busy for the
// delay, the streams go on meanwhile, and a GPU left with nothing to do waits for its host,
// which the tax breakdown counts as launch overhead (docs/taxes.md). Each expectation is built
// from runs of the kernels alone: compute-only kernels take the same time whenever they run,
// so a delay shifts them by exactly its length, or not at all when it overlaps a running kernel.
#include <doctest/doctest.h>

#include <numeric>

#include "tests/support/test_systems.h"
#include "workloads/replay/replay.h"
#include "workloads/trace/builder.h"

using namespace tessera::workloads::trace;
using tessera::models::SystemSpec;
using tessera::sim::Tick;
using tessera::workloads::replay::CategoryTimes;
using tessera::workloads::replay::ReplayOptions;
using tessera::workloads::replay::ReplayResult;
using tessera::workloads::replay::replay_trace;
using tessera::workloads::replay::TimeCategory;

namespace {

constexpr Tick kUs = 1'000'000;
constexpr Tick kDelay = 10 * kUs;

Tick sum(const CategoryTimes& t) { return std::accumulate(t.begin(), t.end(), Tick{0}); }
Tick at(const CategoryTimes& t, TimeCategory c) { return t[static_cast<std::size_t>(c)]; }

// Launch costs that are not 0, so that they show in every span.
SystemSpec system(std::uint32_t gpus) {
  SystemSpec s = tessera::test::mi300x(gpus);
  s.gpu.dispatch.kernel_launch_latency_ps = 2 * kUs;
  s.gpu.dispatch.kernel_teardown_ps = kUs / 2;
  return s;
}

void check_exact_sums(const ReplayResult& r) {
  CHECK(sum(r.times) == r.makespan_ps);
  for (const CategoryTimes& g : r.gpu_times) CHECK(sum(g) == r.makespan_ps);
  for (const auto& k : r.kernels) CHECK(sum(k.times) == k.end_ps - k.launch_ps);
}

// A host list of one rank, written as a string: 'A' and 'B' launch those kernels (stream 0),
// 's' syncs, 'd' delays `delay_ps`. Kernel A computes `a_flops` on each of 8 workgroups, B half
// as much; neither touches memory, so each takes the same time wherever it runs.
Trace program(const std::string& host, std::int64_t a_flops, Tick delay_ps = kDelay) {
  TraceBuilder t(1);
  ProgramBuilder a("a");
  a.compute(a_flops);
  ProgramBuilder b("b");
  b.compute(a_flops / 2);
  const auto pa = t.program(std::move(a));
  const auto pb = t.program(std::move(b));
  for (const char c : host) {
    switch (c) {
      case 'A': t.launch({"A", 0, 0, 8, pa, {}}); break;
      case 'B': t.launch({"B", 0, 0, 8, pb, {}}); break;
      case 's': t.sync(0); break;
      case 'd': t.host_delay(0, delay_ps); break;
      default: FAIL("unknown host letter ", c);
    }
  }
  return std::move(t).build();
}

constexpr std::int64_t kShort = 2LL * 256 * 256 * 64 * 2;     // a few us
constexpr std::int64_t kLong = 2LL * 256 * 256 * 64 * 200;    // far longer than the delay

}  // namespace

TEST_CASE("a delay after a sync: A's span, then the delay, then B's span, the delay counted as launch overhead") {
  const ReplayResult a = replay_trace(program("A", kShort), system(1));
  const ReplayResult b = replay_trace(program("B", kShort), system(1));
  const ReplayResult r = replay_trace(program("AsdB", kShort), system(1));
  CHECK(r.kernels.at(0).launch_ps == 0);
  CHECK(r.kernels.at(0).end_ps == a.kernels.at(0).end_ps);
  // The sync returns when A completes; the host launches B one delay later.
  CHECK(r.kernels.at(1).launch_ps == a.kernels.at(0).end_ps + kDelay);
  CHECK(r.kernels.at(1).end_ps - r.kernels.at(1).launch_ps == b.kernels.at(0).end_ps - b.kernels.at(0).launch_ps);
  // Each run ends with its last kernel, whose span holds its launch latency and teardown.
  CHECK(a.makespan_ps == a.kernels.at(0).end_ps);
  CHECK(b.makespan_ps == b.kernels.at(0).end_ps);
  CHECK(a.makespan_ps > 2 * kUs + kUs / 2);
  CHECK(r.makespan_ps == a.makespan_ps + kDelay + b.makespan_ps);
  check_exact_sums(r);
  // Where the time goes: the kernels' own parts, and the delay as launch overhead, not idle.
  CHECK(at(r.times, TimeCategory::kLaunchOverhead) ==
        at(a.times, TimeCategory::kLaunchOverhead) + kDelay + at(b.times, TimeCategory::kLaunchOverhead));
  CHECK(at(r.times, TimeCategory::kCompute) == at(a.times, TimeCategory::kCompute) + at(b.times, TimeCategory::kCompute));
  CHECK(at(r.times, TimeCategory::kIdle) == 0);
  CHECK(at(r.times, TimeCategory::kBulkSynchronous) == 0);
  CHECK(at(r.kernels.at(1).times, TimeCategory::kLaunchOverhead) == at(b.kernels.at(0).times, TimeCategory::kLaunchOverhead));
}

TEST_CASE("a delay shorter than the running kernel costs nothing: the host launches B while A runs") {
  const ReplayResult plain = replay_trace(program("AB", kLong), system(1));
  const ReplayResult r = replay_trace(program("AdB", kLong), system(1));
  REQUIRE(plain.kernels.at(0).end_ps > kDelay + 10 * kUs);  // A outlasts the delay by far
  CHECK(r.makespan_ps == plain.makespan_ps);
  CHECK(r.kernels.at(1).launch_ps == plain.kernels.at(1).launch_ps);  // B waits for A on the stream either way
  CHECK(r.times == plain.times);
  check_exact_sums(r);
}

TEST_CASE("a delay longer than the running kernel: the GPU waits for its host, as launch overhead") {
  const ReplayResult a = replay_trace(program("A", kShort), system(1));
  const ReplayResult b = replay_trace(program("B", kShort), system(1));
  const ReplayResult r = replay_trace(program("AdB", kShort), system(1));
  REQUIRE(a.kernels.at(0).end_ps < kDelay);
  CHECK(r.kernels.at(0).end_ps == a.kernels.at(0).end_ps);
  CHECK(r.kernels.at(1).launch_ps == kDelay);  // the delay began when A was launched, at 0
  CHECK(r.makespan_ps == kDelay + b.makespan_ps);
  check_exact_sums(r);
  const Tick waiting_for_host = kDelay - a.kernels.at(0).end_ps;
  CHECK(at(r.times, TimeCategory::kLaunchOverhead) ==
        at(a.times, TimeCategory::kLaunchOverhead) + waiting_for_host + at(b.times, TimeCategory::kLaunchOverhead));
  CHECK(at(r.times, TimeCategory::kIdle) == 0);
}

TEST_CASE("a zero delay changes nothing, a trailing delay ends the run later, as launch overhead") {
  const ReplayResult plain = replay_trace(program("AB", kShort), system(1));
  const ReplayResult zero = replay_trace(program("AdB", kShort, 0), system(1));
  CHECK(zero.makespan_ps == plain.makespan_ps);
  CHECK(zero.times == plain.times);

  const ReplayResult a = replay_trace(program("A", kShort), system(1));
  const ReplayResult trailing = replay_trace(program("Ad", kShort), system(1));
  REQUIRE(a.makespan_ps < kDelay);
  CHECK(trailing.makespan_ps == kDelay);  // the host's work is part of the run
  check_exact_sums(trailing);
  CHECK(at(trailing.times, TimeCategory::kLaunchOverhead) ==
        at(a.times, TimeCategory::kLaunchOverhead) + kDelay - a.makespan_ps);
  CHECK(at(trailing.times, TimeCategory::kIdle) == 0);
}

TEST_CASE("the dataflow oracle skips delays: a host's cost is no data dependency") {
  constexpr Tick kMs = 1000 * kUs;
  ReplayOptions oracle;
  oracle.dataflow_oracle = true;
  const ReplayResult traced = replay_trace(program("AdB", kShort, kMs), system(1));
  CHECK(traced.makespan_ps > kMs);
  const ReplayResult with_delay = replay_trace(program("AdB", kShort, kMs), system(1), oracle);
  const ReplayResult without = replay_trace(program("AB", kShort), system(1), oracle);
  CHECK(with_delay.makespan_ps == without.makespan_ps);
  CHECK(with_delay.makespan_ps < kMs);
  CHECK(with_delay.times == without.times);
}

TEST_CASE("before a rank barrier: the delaying rank's GPU waits for its host, the other one for the barrier") {
  TraceBuilder t(2);
  ProgramBuilder p("p");
  p.compute(kShort);
  const auto prog = t.program(std::move(p));
  t.host_delay(0, kDelay);
  t.rank_barrier();
  t.launch({"k", 0, 0, 8, prog, {}});
  t.launch({"k", 1, 0, 8, prog, {}});
  const ReplayResult r = replay_trace(std::move(t).build(), system(2));
  REQUIRE(r.kernels.size() == 2);
  CHECK(r.kernels[0].launch_ps == kDelay);
  CHECK(r.kernels[1].launch_ps == kDelay);
  check_exact_sums(r);
  // The same kernel after the barrier on both: the first kDelay is all that differs.
  CHECK(at(r.gpu_times[0], TimeCategory::kLaunchOverhead) == at(r.gpu_times[1], TimeCategory::kLaunchOverhead) + kDelay);
  CHECK(at(r.gpu_times[1], TimeCategory::kBulkSynchronous) == kDelay);
  CHECK(at(r.gpu_times[0], TimeCategory::kBulkSynchronous) == 0);
}

TEST_CASE("TraceBuilder: host_delay and host_delay_all give version 5, a delay beyond the limit is refused") {
  TraceBuilder t(3);
  t.host_delay_all(5);
  t.host_delay(2, 7);
  const Trace trace = std::move(t).build();
  CHECK(trace.version == kHostDelayVersion);
  REQUIRE(trace.host.size() == 3);
  CHECK(trace.host[0].size() == 1);
  CHECK(trace.host[2].size() == 2);
  CHECK(trace.host[2][1].op == HostOp::kDelay);
  CHECK(trace.host[2][1].delay_ps == 7u);
  TraceBuilder too_long(1);
  too_long.host_delay(0, kMaxHostDelayPs + 1);
  CHECK_THROWS_AS(std::move(too_long).build(), std::invalid_argument);
}
