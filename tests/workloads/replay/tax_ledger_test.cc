// Tax attribution (docs/taxes.md) on hand-written traces: the parts add up to the makespan
// exactly (per GPU, along the critical GPU, per kernel), launch latency shows up as launch
// overhead and only then, a single kernel has no inter-kernel locality tax, a consumer that
// reads what a previous kernel wrote does, and a wait on a peer is bulk-synchronous.
#include <doctest/doctest.h>

#include <numeric>

#include "tests/support/test_systems.h"
#include "workloads/replay/replay.h"
#include "workloads/trace/builder.h"

using namespace tessera::workloads::trace;
using tessera::models::SystemSpec;
using tessera::models::sync::Compare;
using tessera::workloads::replay::CategoryTimes;
using tessera::workloads::replay::ReplayResult;
using tessera::workloads::replay::replay_trace;
using tessera::workloads::replay::TimeCategory;

namespace {

constexpr std::int64_t kMiB = 1 << 20;

tessera::sim::Tick sum(const CategoryTimes& t) { return std::accumulate(t.begin(), t.end(), tessera::sim::Tick{0}); }
tessera::sim::Tick at(const CategoryTimes& t, TimeCategory c) { return t[static_cast<std::size_t>(c)]; }

SystemSpec mi300x(std::uint32_t gpus, tessera::sim::Tick launch_ps) {
  SystemSpec s = tessera::test::mi300x(gpus);
  s.gpu.dispatch.kernel_launch_latency_ps = launch_ps;
  return s;
}

void check_exact_sums(const ReplayResult& r) {
  CHECK(sum(r.times) == r.makespan_ps);
  for (const CategoryTimes& g : r.gpu_times) CHECK(sum(g) == r.makespan_ps);
  for (const auto& k : r.kernels) CHECK(sum(k.times) == k.end_ps - k.launch_ps);
}

// Kernel "produce" stores 4 MiB of x; kernel "consume" (same stream) loads it back and computes.
Trace producer_consumer(bool one_kernel) {
  TraceBuilder t(1);
  const auto x = t.buffer("x", 4 * kMiB);
  ProgramBuilder produce("produce");
  produce.store(x, rank(), wg() * kMiB, kMiB);
  ProgramBuilder consume("consume");
  consume.load(x, rank(), wg() * kMiB, kMiB).compute(2LL * 256 * 256 * 64 * 50);
  if (one_kernel) {
    produce.load(x, rank(), wg() * kMiB, kMiB).compute(2LL * 256 * 256 * 64 * 50);
    const auto p = t.program(std::move(produce));
    t.launch({"fused", 0, 0, 4, p, {}});
  } else {
    const auto p = t.program(std::move(produce));
    const auto c = t.program(std::move(consume));
    t.launch({"produce", 0, 0, 4, p, {}});
    t.launch({"consume", 0, 0, 4, c, {}});
  }
  return std::move(t).build();
}

}  // namespace

TEST_CASE("launch latency is launch overhead: one per kernel on a stream, none when it is zero") {
  for (const tessera::sim::Tick launch_ps : {tessera::sim::Tick{0}, tessera::sim::Tick{2'000'000}}) {
    CAPTURE(launch_ps);
    const auto r = replay_trace(producer_consumer(false), mi300x(1, launch_ps));
    check_exact_sums(r);
    // Two kernels back to back on one stream: each waits its launch latency with nothing resident.
    CHECK(at(r.times, TimeCategory::kLaunchOverhead) == 2 * launch_ps);
    CHECK(at(r.kernels[1].times, TimeCategory::kLaunchOverhead) >= launch_ps);
    CHECK(at(r.times, TimeCategory::kCompute) > 0);
  }
}

TEST_CASE("a single kernel has no inter-kernel locality tax, a consumer of another kernel's output has") {
  const auto fused = replay_trace(producer_consumer(true), mi300x(1, 1'000'000));
  check_exact_sums(fused);
  CHECK(at(fused.times, TimeCategory::kInterKernelLocality) == 0);
  CHECK(at(fused.times, TimeCategory::kMemory) > 0);

  const auto split = replay_trace(producer_consumer(false), mi300x(1, 1'000'000));
  check_exact_sums(split);
  // The producer's stores and the consumer's loads of x are intermediates; the end-of-kernel
  // write-back of the producer's dirty L2 data too.
  CHECK(at(split.times, TimeCategory::kInterKernelLocality) > 0);
  CHECK(at(split.kernels[1].times, TimeCategory::kInterKernelLocality) > 0);
  CHECK(at(split.times, TimeCategory::kMemory) == 0);

  // Ablation: with intermediates free, the run is faster by at least the attributed tax's
  // memory part, and no locality tax is left.
  tessera::workloads::replay::ReplayOptions ideal;
  ideal.ideal_locality = true;
  const auto ablated = replay_trace(producer_consumer(false), mi300x(1, 1'000'000), ideal);
  check_exact_sums(ablated);
  CHECK(at(ablated.times, TimeCategory::kInterKernelLocality) == 0);
  CHECK(ablated.makespan_ps < split.makespan_ps);
}

TEST_CASE("waiting for a peer's flag is bulk-synchronous, the idle GPU's span still adds up") {
  // Rank 0 computes, then stores 1 MiB to rank 1 and releases a flag; rank 1 waits, then loads.
  TraceBuilder t(2);
  const auto inbox = t.buffer("inbox", kMiB);
  ProgramBuilder producer("producer");
  producer.compute(2LL * 256 * 256 * 64 * 200).store(inbox, 1, 0, kMiB).release(1, 7, 1);
  ProgramBuilder consumer("consumer");
  consumer.wait(1, 7, Compare::kGe, 1, inbox, 0, kMiB).load(inbox, rank(), 0, kMiB);
  const auto p = t.program(std::move(producer));
  const auto c = t.program(std::move(consumer));
  t.launch({"producer", 0, 0, 1, p, {}});
  t.launch({"consumer", 1, 0, 1, c, {}});
  const auto r = replay_trace(std::move(t).build(), mi300x(2, 1'000'000));
  check_exact_sums(r);
  REQUIRE(r.gpu_times.size() == 2);
  const CategoryTimes& waiter = r.gpu_times[1];
  // Rank 1 waits for the whole of rank 0's compute and store.
  CHECK(at(waiter, TimeCategory::kBulkSynchronous) >= at(r.gpu_times[0], TimeCategory::kCompute));
  CHECK(at(r.gpu_times[0], TimeCategory::kCommunication) > 0);  // the remote store, nothing else running
  // Rank 0 finished first: the rest of its span is idle.
  CHECK(at(r.gpu_times[0], TimeCategory::kIdle) > 0);
  CHECK(r.critical_rank == 1);
  CHECK(r.times == r.gpu_times[1]);
}

// Two ranks, 8 workgroups each: every workgroup loads 256 KiB from the peer and `local_kib` KiB
// from its own memory into load slot 0 without blocking, then waits for the slot (wait_load), or
// lets the end of its program wait for it (`explicit_wait` false; the compute op of no work comes
// before the end, so the wait is the program end's).
Trace remote_and_local_prefetch(std::int64_t local_kib, bool explicit_wait) {
  TraceBuilder t(2);
  const auto x = t.buffer("x", 2 * kMiB);
  ProgramBuilder p("prefetch");
  p.load_async(x, 1 - rank(), wg() * (256 << 10), 256 << 10, 0);
  if (local_kib > 0) p.load_async(x, rank(), kMiB + wg() * (local_kib << 10), local_kib << 10, 0);
  if (explicit_wait) p.wait_load(0);
  p.compute(0);  // a compute kernel: data movement alone would be a serialised collective (docs/taxes.md)
  const auto prog = t.program(std::move(p));
  t.launch({"prefetch", 0, 0, 8, prog, {}});
  t.launch({"prefetch", 1, 0, 8, prog, {}});
  return std::move(t).build();
}

TEST_CASE("a wait for a remote and a local load in one slot is communication while the remote one is in flight") {
  for (const bool explicit_wait : {true, false}) {
    CAPTURE(explicit_wait);
    const auto remote_only = replay_trace(remote_and_local_prefetch(0, explicit_wait), mi300x(2, 0));
    const auto mixed = replay_trace(remote_and_local_prefetch(8, explicit_wait), mi300x(2, 0));
    check_exact_sums(remote_only);
    check_exact_sums(mixed);
    const tessera::sim::Tick comm_only = at(remote_only.times, TimeCategory::kCommunication);
    const tessera::sim::Tick comm_mixed = at(mixed.times, TimeCategory::kCommunication);
    CHECK(comm_only > 0);
    CHECK(at(remote_only.times, TimeCategory::kMemory) == 0);
    // The 8 KiB local load arrives long before the 256 KiB remote one: the wait is (almost all)
    // communication, as without it; what memory remains is at most the local loads' own time.
    CHECK(comm_mixed * 10 >= comm_only * 9);
    CHECK(at(mixed.times, TimeCategory::kMemory) * 10 <= comm_mixed);
  }
}

TEST_CASE("a wait for a slot whose remote load arrived first is memory for the rest of the local load") {
  // 8 KiB remote, 4 MiB local: once the small remote load is in, the wait is for local memory.
  TraceBuilder t(2);
  const auto x = t.buffer("x", 8 * kMiB);
  ProgramBuilder p("prefetch");
  p.load_async(x, 1 - rank(), wg() * (8 << 10), 8 << 10, 0).load_async(x, rank(), kMiB + wg() * kMiB, kMiB, 0).wait_load(0);
  p.compute(0);
  const auto prog = t.program(std::move(p));
  t.launch({"prefetch", 0, 0, 4, prog, {}});
  t.launch({"prefetch", 1, 0, 4, prog, {}});
  const auto r = replay_trace(std::move(t).build(), mi300x(2, 0));
  check_exact_sums(r);
  CHECK(at(r.times, TimeCategory::kCommunication) > 0);
  CHECK(at(r.times, TimeCategory::kMemory) > at(r.times, TimeCategory::kCommunication));
}

TEST_CASE("the activity log's slices tile each workgroup's life and never overlap on a CU slot") {
  tessera::workloads::replay::ReplayOptions options;
  options.activity = tessera::workloads::replay::ActivityDetail::kWorkgroups;
  const auto r = replay_trace(producer_consumer(false), mi300x(1, 1'000'000), options);
  const auto& log = r.activity;
  REQUIRE(!log.slices.empty());
  CHECK(!log.truncated);
  CHECK(!log.links.empty());
  for (const auto& s : log.slices) CHECK(s.end_ps > s.start_ps);
  for (std::size_t i = 0; i < log.slices.size(); ++i) {
    for (std::size_t j = i + 1; j < log.slices.size(); ++j) {
      const auto& a = log.slices[i];
      const auto& b = log.slices[j];
      if (a.rank != b.rank || a.cu != b.cu || a.slot != b.slot) continue;
      CHECK((a.end_ps <= b.start_ps || b.end_ps <= a.start_ps));
    }
  }
  // A limit on what is kept marks the log truncated and leaves the taxes complete.
  options.max_recorded = 2;
  const auto small = replay_trace(producer_consumer(false), mi300x(1, 1'000'000), options);
  CHECK(small.activity.truncated);
  CHECK(small.activity.slices.size() <= 2);
  CHECK(small.times == r.times);
}

TEST_CASE("each GPU's recorded breakdown over time tiles its span and adds up to its parts") {
  for (const auto detail : {tessera::workloads::replay::ActivityDetail::kKernels,
                            tessera::workloads::replay::ActivityDetail::kWorkgroups}) {
    tessera::workloads::replay::ReplayOptions options;
    options.activity = detail;
    const auto r = replay_trace(producer_consumer(false), mi300x(1, 1'000'000), options);
    const auto& stretches = r.activity.gpu_stretches;
    REQUIRE_FALSE(stretches.empty());
    // Kernel detail records no workgroup slices and no flag edges.
    CHECK(r.activity.slices.empty() == (detail == tessera::workloads::replay::ActivityDetail::kKernels));
    CategoryTimes from_stretches{};
    tessera::sim::Tick at_ps = 0;
    for (const auto& s : stretches) {
      CHECK(s.rank == 0);
      CHECK(s.start_ps == at_ps);  // contiguous, in time order
      CHECK(s.end_ps > s.start_ps);
      from_stretches[static_cast<std::size_t>(s.category)] += s.end_ps - s.start_ps;
      at_ps = s.end_ps;
    }
    CHECK(at_ps == r.makespan_ps);
    // No stretch here mixes local memory with intermediates, so the parts are exactly the stretches'.
    CHECK(from_stretches == r.gpu_times[0]);
    for (std::size_t i = 1; i < stretches.size(); ++i) CHECK(stretches[i].category != stretches[i - 1].category);
  }
}

// A collective serialised after a GEMM, as the BSP variants run it: rank r loads 2 MiB from its
// peer, then (the all-reduce) adds it to its own. Marked collective, its whole span is
// bulk-synchronous whatever it adds; the same program unmarked is a kernel of its own that
// computes and communicates, whose time is work.
TEST_CASE("a serialised collective is bulk-synchronous whether or not it adds, when marked collective") {
  const auto run = [](bool adds, bool collective) {
    TraceBuilder t(2);
    const auto in = t.buffer("in", 2 * kMiB);
    ProgramBuilder gemm("gemm");
    gemm.compute(2LL * 256 * 256 * 64 * 50);
    ProgramBuilder reduce("all_reduce");
    reduce.load(in, Expr(1) - rank(), 0, 2 * kMiB);
    if (adds) reduce.compute(2LL * 256 * 256 * 64 * 10, tessera::models::compute::Dtype::kFp32);
    const auto g = t.program(std::move(gemm));
    const auto c = t.program(std::move(reduce));
    for (std::uint32_t r = 0; r < 2; ++r) t.launch({"gemm", r, 0, 1, g, {}});
    for (std::uint32_t r = 0; r < 2; ++r) {
      Kernel k{"all_reduce", r, 0, 1, c, {}};
      k.collective = collective;
      t.launch(std::move(k));
    }
    return replay_trace(std::move(t).build(), mi300x(2, 0));
  };
  for (const bool adds : {false, true}) {
    CAPTURE(adds);
    const ReplayResult marked = run(adds, true);
    check_exact_sums(marked);
    const auto& gemm = marked.kernels[0];
    const auto& collective = marked.kernels[2];
    // The GEMM's span is compute; everything after it, the collective's loads and adds, is the tax.
    CHECK(at(marked.times, TimeCategory::kCompute) == gemm.end_ps);
    CHECK(at(marked.times, TimeCategory::kBulkSynchronous) == marked.makespan_ps - gemm.end_ps);
    CHECK(at(collective.times, TimeCategory::kBulkSynchronous) == collective.end_ps - collective.launch_ps);
    CHECK(at(collective.times, TimeCategory::kCompute) == 0);
  }
  // Unmarked, the adding kernel is not a pure data mover: its load is communication, its adds compute.
  const ReplayResult unmarked = run(true, false);
  check_exact_sums(unmarked);
  CHECK(at(unmarked.times, TimeCategory::kBulkSynchronous) == 0);
  CHECK(at(unmarked.kernels[2].times, TimeCategory::kCommunication) > 0);
  CHECK(at(unmarked.kernels[2].times, TimeCategory::kCompute) > 0);
  // Without adds, a kernel with no compute op is a data mover anyway: bulk-synchronous unmarked too.
  CHECK(at(run(false, false).times, TimeCategory::kBulkSynchronous) == at(run(false, true).times, TimeCategory::kBulkSynchronous));
}
