// The dataflow oracle (`run --ablate sync`): what the recorder takes for a dependency, and the
// oracle's makespan on a hand-made two-kernel trace against the dataflow time computed by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "tests/support/test_systems.h"
#include "workloads/replay/dataflow.h"
#include "workloads/replay/replay.h"
#include "workloads/trace/builder.h"

using namespace tessera::workloads::trace;
using tessera::models::SystemSpec;
using tessera::workloads::replay::AccessInstance;
using tessera::workloads::replay::DataflowGraph;
using tessera::workloads::replay::DataflowRecorder;
using tessera::workloads::replay::ReplayOptions;
using tessera::workloads::replay::replay_trace;

namespace {

constexpr std::int64_t kMiB = 1 << 20;

// The stores (by order of completion: store id) a read depends on.
std::vector<std::uint32_t> producers_of(const DataflowGraph& g, const AccessInstance& read) {
  const auto found = g.reads.find(read);
  if (found == g.reads.end()) return {};
  return {g.producers.begin() + static_cast<std::ptrdiff_t>(found->second.first),
          g.producers.begin() + static_cast<std::ptrdiff_t>(found->second.first + found->second.count)};
}

AccessInstance instance(std::uint32_t kernel, std::uint64_t ordinal) { return {kernel, 0, ordinal}; }

SystemSpec two_mi300x() {
  SystemSpec s = tessera::test::mi300x(2);
  s.gpu.dispatch.kernel_launch_latency_ps = 1'000'000;  // 1 us
  return s;
}

double ns(double bytes, double rate) { return bytes / rate * 1e9; }

}  // namespace

TEST_CASE("a read depends on the completed writes of its bytes that no later store covered entirely") {
  DataflowRecorder r;
  constexpr std::uint64_t kChunk = DataflowRecorder::kChunkBytes;
  r.write_completed(instance(0, 0), 1, 0, 2 * kChunk, false);          // store 0: chunks 0-1 of GPU 1
  r.write_completed(instance(0, 1), 1, kChunk, kChunk, false);         // store 1 covers chunk 1: replaces 0 there
  r.write_completed(instance(0, 2), 1, kChunk + 64, 64, true);         // store 2: an atomic add into chunk 1
  r.write_completed(instance(0, 3), 1, kChunk + 256, 128, true);       // store 3: another, elsewhere in chunk 1
  r.write_completed(instance(0, 4), 0, 0, kChunk, false);              // store 4: the same addresses on GPU 0
  r.read_issued(instance(1, 0), 1, 0, 64);                             // chunk 0 of GPU 1: store 0
  r.read_issued(instance(1, 1), 1, kChunk, 128);                       // bytes 0-127 of chunk 1: stores 1 and 2
  r.read_issued(instance(1, 2), 1, kChunk + 200, 50);                  // bytes 200-249: store 1 only
  r.read_issued(instance(1, 3), 1, kChunk - 8, 8 + 200);               // both chunks: stores 0, 1, 2 (not 3)
  r.read_issued(instance(1, 4), 1, 4 * kChunk, 64);                    // never written: no dependency
  r.read_issued(instance(1, 5), 0, 100, 8);                            // GPU 0: store 4
  r.write_completed(instance(0, 5), 1, kChunk, kChunk, false);         // store 5 overwrites chunk 1 entirely...
  r.read_issued(instance(1, 6), 1, kChunk + 256, 8);                   // ...so a later read needs only it
  const DataflowGraph g = r.take();
  CHECK(producers_of(g, instance(1, 0)) == std::vector<std::uint32_t>{0});
  CHECK(producers_of(g, instance(1, 1)) == std::vector<std::uint32_t>{1, 2});
  CHECK(producers_of(g, instance(1, 2)) == std::vector<std::uint32_t>{1});
  CHECK(producers_of(g, instance(1, 3)) == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(producers_of(g, instance(1, 4)).empty());
  CHECK(producers_of(g, instance(1, 5)) == std::vector<std::uint32_t>{4});
  CHECK(producers_of(g, instance(1, 6)) == std::vector<std::uint32_t>{5});
  CHECK(g.reads.size() == 6);  // the read with no producer is not listed
}

// Rank 0's kernel "produce" has two workgroups: wg 0 stores 1 MiB into rank 1's inbox at once,
// wg 1 computes for Tc first and then stores the next MiB. Rank 1's kernel "consume" has two
// workgroups: wg w loads MiB w of the inbox, then wg 0 computes for Tc/2. The host runs them
// bulk-synchronously (rank 0 syncs, both ranks meet at a barrier, rank 1 launches).
// Per step, as in replay_test.cc's push trace (mi300x test system): launch 1 us; a remote store
// at the CU port rate (64 B x 2.1 GHz) plus the route's latency 1148 ns; a load of the inbox
// hits the copy the remote store left in rank 1's MALL: 138 ns plus the port time.
//   as traced:  1000 + Tc + port + 1148 (produce ends) + 1000 (consume's launch) + 138 + port + Tc/2
//   the oracle: both kernels launch at 0; consume's wg 0 goes once store 0 is done and ends long
//               before wg 1's data exist; the critical path is produce wg 1 -> consume wg 1:
//               1000 + Tc + port + 1148 + 138 + port.
TEST_CASE("the dataflow oracle of a two-kernel trace gives the hand-computed dataflow time") {
  const std::int64_t flops = 2LL * 256 * 256 * 256 * 16;
  const SystemSpec system = two_mi300x();
  // Tc: the compute's own time on one CU, as the replay gives it (makespan minus an empty kernel's).
  const auto one_kernel_ps = [&](std::int64_t f) {
    TraceBuilder t(1);
    ProgramBuilder p("p");
    p.compute(f);
    const auto prog = t.program(std::move(p));
    t.launch({"k", 0, 0, 1, prog, {}});
    return static_cast<double>(replay_trace(std::move(t).build(), system).makespan_ps);
  };
  const double tc_ns = (one_kernel_ps(flops) - one_kernel_ps(0)) / 1e3;
  const double half_tc_ns = (one_kernel_ps(flops / 2) - one_kernel_ps(0)) / 1e3;
  const double port_ns = ns(kMiB, 64 * 2.1e9);
  REQUIRE(tc_ns > 2 * port_ns + 1148 + 138);  // wg 0's whole chain ends before wg 1's store starts

  TraceBuilder t(2);
  const auto inbox = t.buffer("inbox", 2 * kMiB);
  ProgramBuilder produce("produce");
  produce.compute(flops * wg()).store(inbox, 1, kMiB * wg(), kMiB);
  ProgramBuilder consume("consume");
  consume.load(inbox, rank(), kMiB * wg(), kMiB).compute(Expr(flops / 2) - (flops / 2) * wg());
  const auto p = t.program(std::move(produce));
  const auto c = t.program(std::move(consume));
  t.launch({"produce", 0, 0, 2, p, {}});
  t.sync(0);
  t.rank_barrier();
  t.launch({"consume", 1, 0, 2, c, {}});
  const Trace trace = std::move(t).build();

  const auto as_traced = replay_trace(trace, system);
  ReplayOptions oracle_options;
  oracle_options.dataflow_oracle = true;
  const auto oracle = replay_trace(trace, system, oracle_options);

  const double traced_ns = 1000 + tc_ns + port_ns + 1148 + 1000 + 138 + port_ns + half_tc_ns;
  const double dataflow_ns = 1000 + tc_ns + port_ns + 1148 + 138 + port_ns;
  CHECK(static_cast<double>(as_traced.makespan_ps) / 1e3 == doctest::Approx(traced_ns).epsilon(1e-5));
  CHECK(static_cast<double>(oracle.makespan_ps) / 1e3 == doctest::Approx(dataflow_ns).epsilon(1e-5));
  REQUIRE(oracle.kernels.size() == 2);
  // Both kernels were launched at once: consume's first workgroup started 1 us in, not after produce.
  CHECK(static_cast<double>(oracle.kernels[1].start_ps) / 1e3 == doctest::Approx(1000.0));
  CHECK(oracle.kernels[1].completed);
  CHECK(oracle.link_class_bytes.at("xgmi") == as_traced.link_class_bytes.at("xgmi"));  // the same traffic
}

TEST_CASE("the oracle drops the flag that only ordered data, and keeps the data dependency it guarded") {
  // The push trace of replay_test.cc: as traced, the consumer's load waits for the flag, which is
  // stored 720 ns after the data arrived; the oracle waits for the store itself.
  TraceBuilder t(2);
  const auto inbox = t.buffer("inbox", kMiB);
  ProgramBuilder producer("producer");
  producer.store(inbox, 1, 0, kMiB).release(1, 7, 1);
  ProgramBuilder consumer("consumer");
  consumer.wait(1, 7, tessera::models::sync::Compare::kGe, 1, inbox, 0, kMiB)
      .load(inbox, rank(), 0, kMiB);
  const auto p = t.program(std::move(producer));
  const auto c = t.program(std::move(consumer));
  t.launch({"producer", 0, 0, 1, p, {}});
  t.launch({"consumer", 1, 0, 1, c, {}});
  const Trace trace = std::move(t).build();
  const SystemSpec system = two_mi300x();
  const auto as_traced = replay_trace(trace, system);
  ReplayOptions oracle_options;
  oracle_options.dataflow_oracle = true;
  const auto oracle = replay_trace(trace, system, oracle_options);
  const double port_ns = ns(kMiB, 64 * 2.1e9);
  // The flag's 720 ns is gone; the load still waits for the store: 1000 + port + 1148 + 138 + port.
  CHECK(static_cast<double>(oracle.makespan_ps) / 1e3 == doctest::Approx(1000 + port_ns + 1148 + 138 + port_ns).epsilon(1e-5));
  CHECK(static_cast<double>(as_traced.makespan_ps - oracle.makespan_ps) / 1e3 == doctest::Approx(720).epsilon(1e-5));
}
