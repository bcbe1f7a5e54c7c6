// Replay against hand-computed timelines, and the ways a trace can fail: deadlocks and
// accesses outside buffers are reported, never hung on or crashed.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "tests/support/test_systems.h"
#include "workloads/replay/replay.h"
#include "workloads/replay/replay_error.h"
#include "workloads/trace/builder.h"

using namespace tessera::workloads::trace;
using tessera::models::SystemSpec;
using tessera::models::sync::Compare;
using tessera::workloads::replay::DeadlockError;
using tessera::workloads::replay::ReplayError;
using tessera::workloads::replay::replay_trace;

namespace {

constexpr std::int64_t kMiB = 1 << 20;

SystemSpec two_mi300x() {
  SystemSpec s = tessera::test::mi300x(2);
  s.gpu.dispatch.kernel_launch_latency_ps = 1'000'000;  // 1 us
  return s;
}

double ns(double bytes, double rate) { return bytes / rate * 1e9; }

// The makespan of one workgroup on rank 0 of `ranks` MI300X, its program filled by `fill(p, X)`
// with X a 4 MiB buffer.
template <class Fill>
double one_workgroup_makespan_ps(std::uint32_t ranks, Fill&& fill) {
  TraceBuilder t(ranks);
  const auto x = t.buffer("X", 4 * kMiB);
  ProgramBuilder p("p");
  fill(p, x);
  const auto prog = t.program(std::move(p));
  t.launch({"k", 0, 0, 1, prog, {}});
  return static_cast<double>(replay_trace(std::move(t).build(), two_mi300x()).makespan_ps);
}

}  // namespace

// Rank 0 stores 1 MiB into rank 1's inbox and releases a flag there; rank 1 waits for it,
// acquires the inbox and reads it. Every step by hand (mi300x test system, 2 GPUs):
//   launch latency 1 us on both ranks;
//   store: CU port 64 B x 2.1 GHz = 134.4 GB/s < 7 xGMI links (448 GB/s), then the route's
//     latency: IOD hop 20 ns + xGMI 700 ns + HBM 428 ns = 1148 ns;
//   release: nothing dirty in the producer's L2 (remote stores bypass it); the flag store is
//     performed at the home after half its round trip (20 + 700 ns out, 700 + 20 back): 720 ns;
//   wait: local flag, zero latency: satisfied when the store is performed;
//   load: the remote store left a clean copy in rank 1's MALL: a MALL hit after its 138 ns hit
//     latency, at the port rate (the window is no limit: 64 KiB / 138 ns = 475 GB/s).
TEST_CASE("a hand-written push trace gives the hand-computed makespan") {
  TraceBuilder t(2);
  const auto inbox = t.buffer("inbox", kMiB);
  ProgramBuilder producer("producer");
  producer.store(inbox, 1, 0, kMiB).release(1, 7, 1);
  ProgramBuilder consumer("consumer");
  consumer.wait(1, 7, Compare::kGe, 1, inbox, 0, kMiB).load(inbox, rank(), 0, kMiB);
  const auto p = t.program(std::move(producer));
  const auto c = t.program(std::move(consumer));
  t.launch({"producer", 0, 0, 1, p, {}});
  t.launch({"consumer", 1, 0, 1, c, {}});
  const Trace trace = std::move(t).build();

  const auto r = replay_trace(trace, two_mi300x());
  const double port = 64 * 2.1e9;
  const double store_end = 1000 + ns(kMiB, port) + 1148;
  const double flag_seen = store_end + 720;
  const double expected = flag_seen + 138 + ns(kMiB, port);
  CHECK(static_cast<double>(r.makespan_ps) / 1e3 == doctest::Approx(expected).epsilon(1e-5));
  REQUIRE(r.kernels.size() == 2);
  CHECK(static_cast<double>(r.kernels[0].end_ps) / 1e3 == doctest::Approx(store_end).epsilon(1e-5));
  CHECK(static_cast<double>(r.kernels[1].start_ps) / 1e3 == doctest::Approx(1000.0));
  CHECK(r.kernels[1].completed);
  CHECK(r.link_class_bytes.at("xgmi") == static_cast<std::uint64_t>(kMiB));
  CHECK(r.mall_hit_rate == doctest::Approx(1.0));
}

// load_async overlaps a workgroup's load with its compute: with T0 the makespan of an empty
// program, L the load's and C the compute's own time, a blocking load then the compute takes
// T0 + L + C, the non-blocking one max(T0 + L, T0 + C); the end of a program waits for a load
// still in flight; waiting on an idle slot costs nothing.
TEST_CASE("load_async: the load overlaps the compute, wait_load and the program's end wait for it") {
  const auto makespan_ps = [](auto&& fill) { return one_workgroup_makespan_ps(1, fill); };
  const std::int64_t flops = 2LL * 256 * 256 * 256 * 8;
  const double empty = makespan_ps([](ProgramBuilder& p, std::uint32_t) { p.compute(0); });
  const double load = makespan_ps([](ProgramBuilder& p, std::uint32_t x) { p.load(x, rank(), 0, 4 * kMiB); });
  const double compute = makespan_ps([&](ProgramBuilder& p, std::uint32_t) { p.compute(flops); });
  const double blocking = makespan_ps([&](ProgramBuilder& p, std::uint32_t x) {
    p.load(x, rank(), 0, 4 * kMiB).compute(flops);
  });
  const double overlapped = makespan_ps([&](ProgramBuilder& p, std::uint32_t x) {
    p.load_async(x, rank(), 0, 4 * kMiB, 2).compute(flops).wait_load(2);
  });
  REQUIRE(load - empty > 1e6);  // both parts take microseconds, so the overlap is visible
  REQUIRE(compute - empty > 1e6);
  CHECK(blocking == doctest::Approx(load + compute - empty).epsilon(1e-9));
  CHECK(overlapped == doctest::Approx(std::max(load, compute)).epsilon(1e-9));
  CHECK(overlapped < blocking);
  // Nothing waits explicitly: the workgroup (and so the kernel) still ends when the load arrives.
  CHECK(makespan_ps([](ProgramBuilder& p, std::uint32_t x) { p.load_async(x, rank(), 0, 4 * kMiB, 0); }) ==
        doctest::Approx(load).epsilon(1e-9));
  // A wait on a slot with nothing in flight returns at once; one on another slot does not wait
  // for this one's load, the end of the program does.
  CHECK(makespan_ps([&](ProgramBuilder& p, std::uint32_t) { p.compute(flops).wait_load(5); }) == compute);
  CHECK(makespan_ps([&](ProgramBuilder& p, std::uint32_t x) {
          p.load_async(x, rank(), 0, 4 * kMiB, 0).wait_load(1).compute(flops);
        }) == doctest::Approx(std::max(load, compute)).epsilon(1e-9));
}

// A store to a peer is posted: with S the store's own time and C the compute's, a remote store
// then the compute takes max(S, C) where a local (blocking) store takes S + C; every operation
// that publishes the workgroup's writes (release, flag atomic, device barrier, the program's end)
// first waits for it, so it then costs S + C again.
TEST_CASE("remote stores are posted: the compute overlaps them, releases, atomics, barriers and the end wait") {
  const auto makespan_ps = [](auto&& fill) { return one_workgroup_makespan_ps(2, fill); };
  const std::int64_t flops = 2LL * 256 * 256 * 256 * 8;
  const double empty = makespan_ps([](ProgramBuilder& p, std::uint32_t) { p.compute(0); });
  const double store = makespan_ps([](ProgramBuilder& p, std::uint32_t x) { p.store(x, 1, 0, 4 * kMiB); });
  const double compute = makespan_ps([&](ProgramBuilder& p, std::uint32_t) { p.compute(flops); });
  // The program's end waits for the posted store: a program of one store lasts its transfer.
  REQUIRE(store - empty > 1e6);
  REQUIRE(compute - empty > 1e6);
  const double posted = makespan_ps([&](ProgramBuilder& p, std::uint32_t x) { p.store(x, 1, 0, 4 * kMiB).compute(flops); });
  CHECK(posted == doctest::Approx(std::max(store, compute)).epsilon(1e-9));
  const double serial = store + compute - empty;
  const double released = makespan_ps([&](ProgramBuilder& p, std::uint32_t x) {
    p.store(x, 1, 0, 4 * kMiB).release(1, 0, 1).compute(flops);
  });
  CHECK(released >= serial);
  const double counted = makespan_ps([&](ProgramBuilder& p, std::uint32_t x) {
    p.store(x, 1, 0, 4 * kMiB).atomic_add(rank(), 0, 1).compute(flops);
  });
  CHECK(counted >= serial);
  CHECK(makespan_ps([&](ProgramBuilder& p, std::uint32_t x) {
          p.store(x, 1, 0, 4 * kMiB).barrier(BarrierScope::kDevice, 0).compute(flops);
        }) == doctest::Approx(serial).epsilon(1e-9));
  // A workgroup barrier and a wait_load publish nothing: the store stays posted.
  CHECK(makespan_ps([&](ProgramBuilder& p, std::uint32_t x) {
          p.store(x, 1, 0, 4 * kMiB).barrier(BarrierScope::kWorkgroup, 0).wait_load(0).compute(flops);
        }) == doctest::Approx(posted).epsilon(1e-9));
  // A local store is not posted.
  CHECK(makespan_ps([&](ProgramBuilder& p, std::uint32_t x) { p.store(x, rank(), 0, 4 * kMiB).compute(flops); }) >
        compute);
}

// A workgroup's posted stores in flight are bounded by max_store_bytes_in_flight_per_workgroup: four
// 64 KiB stores to a peer go one after the other under a 64 KiB window, together under 256 KiB.
TEST_CASE("posted stores wait for room in the workgroup's window") {
  const auto makespan_ps = [](std::uint64_t window) {
    TraceBuilder t(2);
    const auto x = t.buffer("X", 4 * 65536);
    ProgramBuilder p("p");
    p.loop(4).store(x, 1, tessera::workloads::trace::loop(0) * 65536, 65536).end_loop();
    const auto prog = t.program(std::move(p));
    t.launch({"k", 0, 0, 1, prog, {}});
    SystemSpec s = two_mi300x();
    s.gpu.fabric.max_store_bytes_in_flight_per_workgroup = window;
    return static_cast<double>(replay_trace(std::move(t).build(), s).makespan_ps);
  };
  const double narrow = makespan_ps(65536);
  const double wide = makespan_ps(4 * 65536);
  CHECK(narrow > 1.5 * wide);
  CHECK(makespan_ps(1024) == narrow);  // a store alone may exceed the window
}

// The reader's L2 keeps a peer's coarse-grained lines where the GPU does so (MI300X maps peer
// VRAM MTYPE NC): a second load of the same range does not cross xGMI. A fine-grained buffer,
// a GPU that does not (the flag off), an acquire of the range and the end of the kernel each
// send the second load to the owner again.
TEST_CASE("peer reads: coarse-grained lines stay in the reader's L2, fine-grained ones and acquires do not") {
  const auto xgmi_bytes = [](Coherence coherence, bool cached, int shape) {
    TraceBuilder t(2);
    const auto x = t.buffer("X", kMiB, coherence);
    ProgramBuilder reader("reader");
    reader.load(x, 1, 0, kMiB);
    if (shape == 1) reader.wait(0, 0, Compare::kGe, 1, x, 0, kMiB);  // acquires the range (on every owner's copy)
    if (shape != 2) reader.load(x, 1, 0, kMiB);
    const auto r = t.program(std::move(reader));
    t.launch({"reader", 0, 0, 1, r, {}});
    if (shape == 2) t.launch({"again", 0, 0, 1, r, {}});  // the same load in the next kernel
    if (shape == 1) {
      ProgramBuilder flagger("flagger");
      flagger.release(0, 0, 1);
      t.launch({"flagger", 1, 0, 1, t.program(std::move(flagger)), {}});
    }
    SystemSpec s = two_mi300x();
    s.gpu.memory.peer_reads_in_l2 = cached;
    return replay_trace(std::move(t).build(), s).link_class_bytes.at("xgmi");
  };
  const auto one = static_cast<std::uint64_t>(kMiB);
  CHECK(xgmi_bytes(Coherence::kCoarse, true, 0) == one);
  CHECK(xgmi_bytes(Coherence::kFine, true, 0) == 2 * one);
  CHECK(xgmi_bytes(Coherence::kCoarse, false, 0) == 2 * one);
  CHECK(xgmi_bytes(Coherence::kCoarse, true, 1) >= 2 * one);
  CHECK(xgmi_bytes(Coherence::kCoarse, true, 2) == 2 * one);
}

TEST_CASE("kernels on one stream run in order, on two streams they overlap") {
  auto make = [](std::uint32_t second_stream) {
    TraceBuilder t(1);
    ProgramBuilder work("work");
    work.compute(2LL * 256 * 256 * 64 * 100);
    const auto p = t.program(std::move(work));
    t.launch({"a", 0, 0, 8, p, {}});
    t.launch({"b", 0, second_stream, 8, p, {}});
    return std::move(t).build();
  };
  const auto serial = replay_trace(make(0), tessera::test::mi300x(1));
  const auto parallel = replay_trace(make(1), tessera::test::mi300x(1));
  CHECK(serial.kernels[1].start_ps >= serial.kernels[0].end_ps);
  CHECK(parallel.kernels[1].start_ps < parallel.kernels[0].end_ps);
  CHECK(parallel.makespan_ps < serial.makespan_ps);
}

TEST_CASE("device and all-rank barriers hold every workgroup until the last arrives") {
  TraceBuilder t(2);
  const auto buf = t.buffer("x", kMiB);
  ProgramBuilder prog("staggered");
  // Workgroup w first loads (w+1) x 64 KiB, so arrivals are staggered; after the barrier each loads 4 KiB.
  prog.load(buf, rank(), 0, (wg() + 1) * 65536).barrier(BarrierScope::kAllRanks, 3).load(buf, rank(), 0, 4096);
  const auto p = t.program(std::move(prog));
  t.launch({"k", 0, 0, 4, p, {}});
  t.launch({"k", 1, 0, 2, p, {}});
  const auto r = replay_trace(std::move(t).build(), tessera::test::mi300x(2));
  // Both kernels end after the slowest pre-barrier load (rank 0's 256 KiB workgroup).
  CHECK(r.kernels[0].completed);
  CHECK(r.kernels[1].completed);
  const double diff = std::abs(static_cast<double>(r.kernels[0].end_ps) - static_cast<double>(r.kernels[1].end_ps));
  CHECK(diff < 200'000.0);  // both finish within the last 4 KiB load of each other
}

TEST_CASE("a wait nothing releases is reported with its flag, not hung on") {
  TraceBuilder t(1);
  ProgramBuilder prog("stuck");
  prog.wait(0, 42, Compare::kGe, 1);
  const auto p = t.program(std::move(prog));
  t.launch({"stuck", 0, 0, 2, p, {}});
  try {
    replay_trace(std::move(t).build(), tessera::test::mi300x(1));
    FAIL("no deadlock reported");
  } catch (const DeadlockError& e) {
    const std::string m = e.what();
    CHECK(m.find("flag (rank 0, id 42)") != std::string::npos);
    CHECK(m.find("rank 0 waits") != std::string::npos);
  }
}

TEST_CASE("a rank_barrier that one rank never reaches is refused before the replay, even in a trace built in code") {
  TraceBuilder b(2);
  ProgramBuilder prog("p");
  prog.compute(1);
  const auto p = b.program(std::move(prog));
  b.launch({"k0", 0, 0, 1, p, {}});
  b.launch({"k1", 1, 0, 1, p, {}});
  b.rank_barrier();
  Trace t = std::move(b).build();
  t.host[0].push_back({HostOp::kRankBarrier, 0});  // rank 0: a second barrier, rank 1 none
  CHECK_THROWS_WITH_AS(replay_trace(t, tessera::test::mi300x(2)),
                       doctest::Contains("rank 1 has 1 rank_barrier commands and rank 0 has 2"), std::exception);
}

TEST_CASE("a device barrier wider than the GPU can hold is a deadlock, reported") {
  SystemSpec s = tessera::test::mi300x(1);
  s.gpu.compute.workgroup_slots_per_cu = 1;
  TraceBuilder t(1);
  ProgramBuilder prog("too_wide");
  prog.barrier(BarrierScope::kDevice, 0);
  const auto p = t.program(std::move(prog));
  t.launch({"too_wide", 0, 0, 8 * 38 + 1, p, {}});  // one more than the CUs x slots
  CHECK_THROWS_WITH_AS(replay_trace(std::move(t).build(), s), doctest::Contains("device barrier 0"), DeadlockError);
}

TEST_CASE("accesses outside a buffer and traces larger than the system are errors") {
  TraceBuilder t(1);
  const auto buf = t.buffer("small", 4096);
  ProgramBuilder prog("overrun");
  prog.load(buf, rank(), wg() * 4096, 4096);
  const auto p = t.program(std::move(prog));
  t.launch({"overrun", 0, 0, 2, p, {}});
  CHECK_THROWS_WITH_AS(replay_trace(std::move(t).build(), tessera::test::mi300x(1)),
                       doctest::Contains("workgroup 1: program 'overrun' instruction 0 (load): bytes [4096, 4096+4096) outside buffer 'small'"),
                       ReplayError);
  TraceBuilder two(2);
  ProgramBuilder nothing("nothing");
  nothing.compute(1);
  const auto q = two.program(std::move(nothing));
  two.launch({"n", 0, 0, 1, q, {}});
  two.launch({"n", 1, 0, 1, q, {}});
  CHECK_THROWS_WITH_AS(replay_trace(std::move(two).build(), tessera::test::mi300x(1)),
                       doctest::Contains("2 ranks"), ReplayError);
}

// A ranged atomic add is performed at the owner's memory side: the operand crosses the links
// like a store, and the memory side reads the old values and writes the sums, so it loads the
// owner's HBM twice. With HBM (100 GB/s) slower than a CU's port (134.4 GB/s) and no MALL, by
// hand (mi300x test system, launch 1 us, atomic latencies 0):
//   store into rank 1:   one flow on rank 1's HBM at 100 GB/s, + route latency 1148 ns;
//   atomic into rank 1:  the operand flow and the read flow share that HBM, 50 GB/s each; the
//                        operand's route latency (1148 ns) exceeds the read's (HBM alone, 428 ns);
//   atomic into rank 0:  the same two flows on rank 0's HBM; die -> local HBM is 428 ns.
TEST_CASE("atomic_add_range reads and writes at the owner's memory side: twice a store's HBM traffic") {
  SystemSpec s = two_mi300x();
  s.gpu.memory.hbm_bandwidth_bytes_per_s = 100e9;
  s.gpu.memory.mall.capacity_bytes = 0;
  const auto run = [&s](OpKind kind, std::int64_t owner) {
    TraceBuilder t(2);
    const auto c = t.buffer("C", kMiB);
    ProgramBuilder p("reduce");
    if (kind == OpKind::kStore) {
      p.store(c, owner, 0, kMiB);
    } else {
      p.atomic_add_range(c, owner, 0, kMiB);
    }
    const auto prog = t.program(std::move(p));
    t.launch({"reduce", 0, 0, 1, prog, {}});
    const Trace trace = std::move(t).build();
    CHECK(trace.version == (kind == OpKind::kStore ? 1u : 2u));
    return replay_trace(trace, s);
  };
  const auto store = run(OpKind::kStore, 1);
  const auto remote = run(OpKind::kAtomicAddRange, 1);
  const auto local = run(OpKind::kAtomicAddRange, 0);
  CHECK(static_cast<double>(store.makespan_ps) / 1e3 == doctest::Approx(1000 + ns(kMiB, 100e9) + 1148).epsilon(1e-5));
  CHECK(static_cast<double>(remote.makespan_ps) / 1e3 == doctest::Approx(1000 + ns(kMiB, 50e9) + 1148).epsilon(1e-5));
  CHECK(static_cast<double>(local.makespan_ps) / 1e3 == doctest::Approx(1000 + ns(kMiB, 50e9) + 428).epsilon(1e-5));
  CHECK(store.link_class_bytes.at("hbm") == static_cast<std::uint64_t>(kMiB));
  CHECK(remote.link_class_bytes.at("hbm") == static_cast<std::uint64_t>(2 * kMiB));
  CHECK(local.link_class_bytes.at("hbm") == static_cast<std::uint64_t>(2 * kMiB));
  CHECK(remote.link_class_bytes.at("xgmi") == static_cast<std::uint64_t>(kMiB));  // the operand only
  CHECK(local.link_class_bytes.at("xgmi") == 0);
  CHECK(local.link_class_bytes.at("l2") == 0);  // the issuing die's L2 is bypassed
}

TEST_CASE("atomic_add_range: the old values hit the MALL that the previous sums filled") {
  // Two atomics on one range: the first reads HBM, the second the MALL (write-through with
  // allocate); both write through to HBM. The second finishes sooner: the MALL is wider.
  SystemSpec s = two_mi300x();
  s.gpu.memory.hbm_bandwidth_bytes_per_s = 100e9;
  TraceBuilder t(2);
  const auto c = t.buffer("C", kMiB);
  ProgramBuilder p("twice");
  p.atomic_add_range(c, 1, 0, kMiB).atomic_add_range(c, 1, 0, kMiB);
  const auto prog = t.program(std::move(p));
  t.launch({"twice", 0, 0, 1, prog, {}});
  const auto r = replay_trace(std::move(t).build(), s);
  CHECK(r.mall_hit_rate == doctest::Approx(0.5));
  CHECK(r.link_class_bytes.at("hbm") == static_cast<std::uint64_t>(3 * kMiB));  // one read, two writes
  CHECK(r.link_class_bytes.at("mall") == static_cast<std::uint64_t>(kMiB));
  // First: 2 MiB on the 100 GB/s HBM; second: 1 MiB written there while the read streams from the MALL.
  const double first = ns(kMiB, 50e9) + 1148;
  const double second = std::max(ns(kMiB, 100e9) + 1148, 138 + ns(kMiB, 64 * 2.1e9));
  CHECK(static_cast<double>(r.makespan_ps) / 1e3 == doctest::Approx(1000 + first + second).epsilon(1e-5));
}
