// The replay's up-front limits (workloads/replay/replay_limits.h, work_bound.h): absurd traces
// (10^15 bytes of buffers, 10^12 workgroups, loop counts whose product explodes) are refused
// with a message naming the size and the limit, in milliseconds and without allocating, and the
// bound on the work is exact for constant loops and never above what a trace does.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <chrono>
#include <string>

#include "tests/support/test_systems.h"
#include "workloads/replay/replay.h"
#include "workloads/replay/replay_error.h"
#include "workloads/replay/replay_limits.h"
#include "workloads/replay/work_bound.h"
#include "workloads/trace/builder.h"
#include "workloads/workload_limits.h"

using namespace tessera::workloads::trace;
using tessera::models::SystemSpec;
using tessera::workloads::replay::kernel_work_bound;
using tessera::workloads::replay::laid_out_bytes_per_rank;
using tessera::workloads::replay::limits_problem;
using tessera::workloads::replay::replay_trace;
using tessera::workloads::replay::ReplayError;

namespace {

SystemSpec one_mi300x() {
  SystemSpec s = tessera::test::mi300x(1);
  s.gpu.memory.hbm_capacity_bytes = 192'000'000'000;
  return s;
}

// A one-kernel trace on one rank: `grid` workgroups running `body`, with one buffer.
Trace one_kernel(std::uint64_t buffer_bytes, std::uint64_t grid, ProgramBuilder body, std::vector<Expr> args = {}) {
  TraceBuilder t(1);
  t.buffer("buf", buffer_bytes);
  const auto p = t.program(std::move(body));
  t.launch({"k", 0, 0, grid, p, std::move(args)});
  return std::move(t).build();
}

// The process's peak resident memory, in bytes (Linux reports KiB).
std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

// replay_trace refuses the trace with a ReplayError mentioning `needle`, in well under a
// second and without growing the process by more than a few MiB: nothing was built.
void refused_fast(const Trace& trace, const std::string& needle) {
  const std::uint64_t rss_before = peak_rss_bytes();
  const auto t0 = std::chrono::steady_clock::now();
  std::string message;
  try {
    (void)replay_trace(trace, one_mi300x());
  } catch (const ReplayError& e) {
    message = e.what();
  }
  const auto took = std::chrono::steady_clock::now() - t0;
  INFO(message);
  CHECK(message.find(needle) != std::string::npos);
  CHECK(took < std::chrono::milliseconds(200));
  CHECK(peak_rss_bytes() - rss_before < (64ULL << 20));
}

}  // namespace

TEST_CASE("10^15 bytes of buffers are refused against the GPU's HBM, before the machine is built") {
  ProgramBuilder p("p");
  p.load(0, rank(), 0, 4096);
  const Trace trace = one_kernel(1'000'000'000'000'000, 1, std::move(p));
  const auto problem = limits_problem(trace, one_mi300x());
  REQUIRE(problem);
  CHECK(problem->find("per GPU (buf ") != std::string::npos);
  CHECK(problem->find("192 GB of HBM") != std::string::npos);
  refused_fast(trace, "of HBM");
}

TEST_CASE("buffer sizes near 2^64 saturate instead of wrapping past the HBM check") {
  TraceBuilder t(1);
  t.buffer("a", ~std::uint64_t{0} - 1);  // rounded up to 2 MiB, this would wrap to 0
  t.buffer("b", 2 << 20);
  ProgramBuilder p("p");
  p.load(1, rank(), 0, 64);
  t.launch({"k", 0, 0, 1, t.program(std::move(p)), {}});
  const Trace trace = std::move(t).build();
  CHECK(laid_out_bytes_per_rank(trace) == ~std::uint64_t{0});
  refused_fast(trace, "of HBM");
}

TEST_CASE("10^12 workgroups in one kernel are refused (the compute model counts them in 32 bits)") {
  ProgramBuilder p("p");
  p.compute(1);
  refused_fast(one_kernel(4096, 1'000'000'000'000, std::move(p)), "1000000000000 workgroups; at most 4294967295 per kernel");
}

TEST_CASE("more than 2^32 workgroups over all kernels are refused") {
  TraceBuilder t(1);
  ProgramBuilder p("p");
  p.compute(1);
  const auto prog = t.program(std::move(p));
  // Not "k" + std::to_string(i): GCC 12 warns (-Wrestrict) on that, a false positive.
  for (int i = 0; i < 3; ++i) t.launch({std::string("k").append(std::to_string(i)), 0, 0, 2'000'000'000, prog, {}});
  refused_fast(std::move(t).build(), "6000000000 workgroups in all");
}

TEST_CASE("nested constant loops whose product explodes are refused") {
  ProgramBuilder p("p");
  p.loop(1'000'000).loop(1'000'000).compute(1).end_loop().end_loop();
  const Trace trace = one_kernel(4096, 1, std::move(p));
  CHECK(kernel_work_bound(trace, 0).operations == 1'000'000'000'000);
  refused_fast(trace, "at least 1e+12 operations");
}

TEST_CASE("a loop count given by a kernel argument is bounded over every workgroup") {
  // r0 = wg + 10^6: every one of the 10^6 workgroups loops at least 10^6 times.
  ProgramBuilder p("p");
  p.loop(reg(0)).compute(1).end_loop();
  const Trace trace = one_kernel(4096, 1'000'000, std::move(p), {wg() + Expr(1'000'000)});
  CHECK(kernel_work_bound(trace, 0).operations == 1'000'000'000'000);
  refused_fast(trace, "operations");
}

TEST_CASE("bytes moved beyond 1 PiB are refused, though the buffer fits") {
  ProgramBuilder p("p");
  p.loop(1'000'000).load(0, rank(), 0, 2LL << 30).end_loop();
  const Trace trace = one_kernel(2ULL << 30, 1, std::move(p));
  CHECK(kernel_work_bound(trace, 0).bytes_moved == 1'000'000ULL * (2ULL << 30));
  refused_fast(trace, "would move at least");
}

TEST_CASE("the work bound is exact for constant loops and a lower bound otherwise") {
  SUBCASE("constant loops: every op times the enclosing counts, times the grid") {
    ProgramBuilder p("p");
    p.load(0, rank(), 0, 100);  // 1
    p.loop(3).load(0, rank(), 0, 100).compute(8).loop(2).store(0, rank(), 0, 50).end_loop().end_loop();  // 3 x (2 + 2)
    p.loop(0).compute(1).end_loop();  // never runs
    const auto b = kernel_work_bound(one_kernel(4096, 4, std::move(p)), 0);
    CHECK(b.operations == 4 * (1 + 3 * 4));
    CHECK(b.bytes_moved == 4 * (100 + 3 * (100 + 2 * 50)));
  }
  SUBCASE("counts from wg: the smallest count over the grid") {
    ProgramBuilder p("p");
    p.loop(wg() + Expr(5)).compute(1).end_loop();  // 5..12 iterations over 8 workgroups: at least 5 each
    CHECK(kernel_work_bound(one_kernel(4096, 8, std::move(p)), 0).operations == 8 * 5);
  }
  SUBCASE("a register set inside the loop that reads it is unknown at the top of the body") {
    ProgramBuilder p("p");
    p.set(1, 1'000'000).loop(2).loop(reg(1)).compute(1).end_loop().set(1, 0).end_loop();
    // Iteration 1 loops 10^6 times, iteration 2 none: the bound may not assume 10^6 twice.
    CHECK(kernel_work_bound(one_kernel(4096, 1, std::move(p)), 0).operations <= 1'000'000);
  }
  SUBCASE("a register set from loop counters inside the loop is bounded after its set") {
    ProgramBuilder p("p");
    p.loop(4).set(2, loop(0) + Expr(10)).loop(reg(2)).compute(1).end_loop().end_loop();  // 10, 11, 12, 13
    CHECK(kernel_work_bound(one_kernel(4096, 1, std::move(p)), 0).operations == 4 * 10);
  }
  SUBCASE("div and mod") {
    ProgramBuilder p("p");
    p.loop(mod(wg(), 4) + div(wg(), 2) + Expr(1)).compute(1).end_loop();  // wg 0..3: 1, 2, 4, 5
    CHECK(kernel_work_bound(one_kernel(4096, 4, std::move(p)), 0).operations == 4 * 1);
  }
}

TEST_CASE("traces within the limits pass, at the limits' edges too") {
  ProgramBuilder p("p");
  p.loop(1000).load(0, rank(), 0, 4096).compute(1).end_loop();
  CHECK_FALSE(limits_problem(one_kernel(192'000'000'000 - (2 << 20), 1000, std::move(p)), one_mi300x()));
  ProgramBuilder q("q");
  q.compute(1);
  CHECK_FALSE(limits_problem(one_kernel(4096, tessera::workloads::kMaxWorkgroupsPerKernel, std::move(q)), one_mi300x()));
}
