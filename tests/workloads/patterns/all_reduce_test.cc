// The reduce-scatter and all-reduce kernels: every rank ends with every rank's contribution in
// each byte of its result exactly once (followed symbolically through every load, store and
// atomic add), the bytes each rank sends and receives are those of the algorithm, every wait is
// released, nothing is read before it arrived; and replayed, no algorithm beats the links.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ledger.h"
#include "tests/support/test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/all_reduce.h"
#include "workloads/patterns/reduce_scatter.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;

namespace tessera::workloads::patterns::test {

// ---- The reduction tracker (also used by gemm_all_reduce_test.cc) ----
//
// Follows, for every byte of every buffer on every rank, the set of ranks whose contribution the
// data holds (a bit mask), through an untimed run in execution order:
//  * a buffer that no op writes is an input: rank q's copy holds {q}; `operands` (GEMM inputs)
//    hold nothing (a product is not a sum of them);
//  * a workgroup accumulates what it loads since its last store: loading a range adds the
//    range's set (it must be one set over the whole range, and must not overlap what the
//    accumulator holds: that would count a contribution twice; consecutive loads of one set
//    from one buffer copy are the rows of one block, one contribution);
//  * a store writes the accumulator, or {issuer} when only operands were loaded (a fresh
//    partial product); an atomic add ORs it in (it must not overlap the target's set).
// At the end, each rank's `result` buffer must hold every rank's contribution or nothing (a
// byte no one writes: a padding gap) in every byte.
namespace {

using Mask = std::uint64_t;

class MaskMap {
 public:
  MaskMap(std::int64_t size, Mask initial) : size_(size) {
    segments_[0] = initial;
    segments_[size] = 0;
  }
  // Out-of-bounds ranges are the executor's to report; the tracker skips them.
  bool inside(std::int64_t lo, std::int64_t hi) const { return 0 <= lo && lo < hi && hi <= size_; }

  // The one mask of [lo, hi), or nullopt when it varies.
  std::optional<Mask> uniform(std::int64_t lo, std::int64_t hi) const {
    auto it = std::prev(segments_.upper_bound(lo));
    const Mask m = it->second;
    for (++it; it != segments_.end() && it->first < hi; ++it) {
      if (it->second != m) return std::nullopt;
    }
    return m;
  }
  void set(std::int64_t lo, std::int64_t hi, Mask m) {
    split(lo);
    split(hi);
    segments_.erase(segments_.find(lo), segments_.find(hi));
    segments_[lo] = m;
  }
  // ORs `m` in; false when some byte already holds part of it.
  bool add(std::int64_t lo, std::int64_t hi, Mask m) {
    split(lo);
    split(hi);
    bool ok = true;
    for (auto it = segments_.find(lo); it != segments_.end() && it->first < hi; ++it) {
      ok = ok && (it->second & m) == 0;
      it->second |= m;
    }
    return ok;
  }
  template <class F>
  void each(F&& f) const {  // f(lo, hi, mask) for every segment
    for (auto it = segments_.begin(); std::next(it) != segments_.end(); ++it) f(it->first, std::next(it)->first, it->second);
  }

 private:
  void split(std::int64_t at) {
    auto it = std::prev(segments_.upper_bound(at));
    if (it->first != at) segments_[at] = it->second;
  }
  std::int64_t size_;
  std::map<std::int64_t, Mask> segments_;  // start -> mask; the last entry ends the buffer
};

}  // namespace

struct ReductionCheck {
  std::optional<std::string> problem;      // the executor's first violation, or the tracker's
  std::vector<std::int64_t> summed_bytes;  // per rank: bytes of `result` holding every rank's contribution
};

ReductionCheck check_reduction(const tr::Trace& trace, const std::set<std::string>& operands, const std::string& result,
                               const Observer& also) {
  ReductionCheck check;
  // The untimed executor has no atomic_add_range: it runs a copy with each one as a store of the
  // same range (bounds and completion are checked the same); the tracker knows which were atomics.
  tr::Trace run = trace;
  std::set<std::pair<std::uint32_t, std::uint32_t>> atomics;  // (program, instruction)
  std::set<std::uint32_t> written;
  for (std::uint32_t prog = 0; prog < run.programs.size(); ++prog) {
    for (std::uint32_t i = 0; i < run.programs[prog].instrs.size(); ++i) {
      tr::Instr& in = run.programs[prog].instrs[i];
      if (in.kind == tr::OpKind::kAtomicAddRange) {
        in.kind = tr::OpKind::kStore;
        atomics.insert({prog, i});
      }
      if (in.kind == tr::OpKind::kStore) written.insert(in.buffer);
    }
  }
  run.version = tr::kOldestTraceVersion;
  const Mask all = trace.ranks >= 64 ? ~Mask{0} : (Mask{1} << trace.ranks) - 1;
  std::map<std::pair<std::uint32_t, std::uint32_t>, MaskMap> data;  // (rank, buffer)
  const auto data_of = [&](std::uint32_t rank, std::uint32_t buffer) -> MaskMap& {
    auto it = data.find({rank, buffer});
    if (it != data.end()) return it->second;
    const bool input = !written.count(buffer) && !operands.count(trace.buffers[buffer].name);
    return data.emplace(std::make_pair(rank, buffer),
                        MaskMap(static_cast<std::int64_t>(trace.buffers[buffer].bytes), input ? Mask{1} << rank : 0))
        .first->second;
  };
  struct Accumulator {
    Mask mask = 0;
    bool fresh = true;  // the next load starts a new sum
    // The last load's source and set: a block loaded row by row is one contribution in several loads.
    std::pair<std::uint32_t, std::uint32_t> last{~0u, ~0u};
    Mask last_mask = 0;
  };
  std::map<std::pair<std::uint32_t, std::uint64_t>, Accumulator> accumulators;  // (kernel, wg)
  const auto fail = [&](const pt::ExecutedOp& e, const std::string& what) {
    if (check.problem) return;
    check.problem = fmt::format("kernel '{}' rank {} wg {} instr {} ({} '{}' of rank {} [{}, {})): {}",
                                trace.kernels[e.kernel].name, e.rank, e.wg, e.op.instr, tr::op_name(e.op.kind),
                                trace.buffers[e.op.buffer].name, e.op.a, e.op.b, e.op.b + e.op.c, what);
  };
  const RunReport report = run_untimed(run, [&](const pt::ExecutedOp& e) {
    if (also) also(e);
    if (!tr::is_load(e.op.kind) && e.op.kind != tr::OpKind::kStore) return;
    Accumulator& acc = accumulators[{e.kernel, e.wg}];
    const auto owner = static_cast<std::uint32_t>(e.op.a);
    const std::int64_t lo = e.op.b;
    const std::int64_t hi = e.op.b + e.op.c;
    if (owner >= trace.ranks || !data_of(owner, e.op.buffer).inside(lo, hi)) return;
    if (tr::is_load(e.op.kind)) {  // a load_async is counted when issued (its data are used after its wait_load)
      if (acc.fresh) acc = Accumulator{0, false, {~0u, ~0u}, 0};
      if (operands.count(trace.buffers[e.op.buffer].name)) return;
      const std::optional<Mask> m = data_of(owner, e.op.buffer).uniform(lo, hi);
      if (!m) return fail(e, "loads bytes holding different sums");
      if (*m == 0) return fail(e, "loads bytes that hold no contribution");
      const auto source = std::make_pair(owner, e.op.buffer);
      if (source == acc.last && *m == acc.last_mask) return;  // the next row of the same block
      if ((acc.mask & *m) != 0) return fail(e, fmt::format("counts contributions {:#x} twice", acc.mask & *m));
      acc.mask |= *m;
      acc.last = source;
      acc.last_mask = *m;
      return;
    }
    const Mask value = acc.mask != 0 ? acc.mask : Mask{1} << e.rank;
    acc.fresh = true;
    const std::uint32_t program = trace.kernels[e.kernel].program;
    if (atomics.count({program, e.op.instr})) {
      if (!data_of(owner, e.op.buffer).add(lo, hi, value)) fail(e, "an atomic add counts a contribution twice");
    } else {
      data_of(owner, e.op.buffer).set(lo, hi, value);
    }
  });
  if (report.violation) check.problem = "untimed run: " + *report.violation;
  if (!report.completed && !check.problem) check.problem = "the untimed run did not complete";
  const std::optional<std::uint32_t> out = trace.find_buffer(result);
  REQUIRE(out);
  for (std::uint32_t r = 0; r < trace.ranks; ++r) {
    std::int64_t summed = 0;
    data_of(r, *out).each([&](std::int64_t lo, std::int64_t hi, Mask m) {
      if (m == all) summed += hi - lo;
      if (m != all && m != 0 && !check.problem) {
        check.problem = fmt::format("rank {}: '{}' [{}, {}) holds a partial sum {:#x}", r, result, lo, hi, m);
      }
    });
    check.summed_bytes.push_back(summed);
  }
  return check;
}

}  // namespace tessera::workloads::patterns::test

namespace {

constexpr std::uint64_t kOutOffset = 64;  // outputs need not start at 0

struct Built {
  tr::Trace trace;
  std::uint64_t shard = 0;  // per-rank bytes of a chunk (ring) or of the whole buffer (one-shot)
};

Built build_reduce_scatter(std::uint32_t ranks, std::uint64_t shard, std::uint32_t channels, std::uint64_t chunk,
                           bool spread_rings) {
  tr::TraceBuilder tb(ranks);
  p::ReduceScatterSpec spec;
  spec.spread_rings = spread_rings;
  spec.shard_bytes = shard;
  spec.channels = channels;
  spec.chunk_bytes = chunk;
  spec.flag_base = 1000;
  spec.input_offset = 128;
  spec.input_buffer = tb.buffer("in", 128 + shard * ranks);
  spec.output_offset = kOutOffset;
  spec.output_buffer = tb.buffer("out", kOutOffset + shard);
  spec.scratch_buffer = tb.buffer("scratch", shard * ranks);
  tb.rank_barrier();
  p::append_reduce_scatter(tb, ranks, spec);
  tb.sync_all();
  return {std::move(tb).build(), shard};
}

Built build_all_reduce(std::uint32_t ranks, p::AllReduceAlgorithm algorithm, std::uint64_t bytes,
                       std::uint32_t channels, std::uint64_t chunk) {
  tr::TraceBuilder tb(ranks);
  p::AllReduceSpec spec;
  spec.algorithm = algorithm;
  spec.bytes = bytes;
  spec.channels = channels;
  spec.chunk_bytes = chunk;
  spec.flag_base = 1000;
  spec.input_buffer = tb.buffer("in", bytes);
  spec.output_offset = kOutOffset;
  spec.output_buffer = tb.buffer("out", kOutOffset + bytes);
  if (p::all_reduce_scratch_bytes(spec) > 0) spec.scratch_buffer = tb.buffer("scratch", p::all_reduce_scratch_bytes(spec));
  tb.rank_barrier();
  p::append_all_reduce(tb, ranks, spec);
  tb.sync_all();
  return {std::move(tb).build(), algorithm == p::AllReduceAlgorithm::kRing ? bytes / ranks : bytes};
}

// Checks the result and returns the ledger of the run.
pt::Ledger run_checked(const tr::Trace& trace, std::int64_t summed_per_rank) {
  pt::Ledger ledger(trace);
  const pt::ReductionCheck check = pt::check_reduction(trace, {}, "out", [&](const pt::ExecutedOp& e) { ledger.add(e); });
  CHECK_MESSAGE(!check.problem, check.problem.value_or(""));
  for (std::uint32_t r = 0; r < trace.ranks; ++r) CHECK(check.summed_bytes[r] == summed_per_rank);
  CHECK(ledger.waits_released());
  return ledger;
}

void check_reduce_scatter(std::uint32_t ranks, std::uint64_t shard, std::uint32_t channels, std::uint64_t chunk,
                          bool spread_rings = true) {
  CAPTURE(ranks);
  CAPTURE(shard);
  CAPTURE(channels);
  CAPTURE(chunk);
  CAPTURE(spread_rings);
  const Built b = build_reduce_scatter(ranks, shard, channels, chunk, spread_rings);
  const pt::Ledger ledger = run_checked(b.trace, static_cast<std::int64_t>(shard));
  const auto s = static_cast<std::int64_t>(shard);
  const std::uint32_t used_channels = static_cast<std::uint32_t>(std::min<std::uint64_t>(channels, shard));
  for (std::uint32_t r = 0; r < ranks; ++r) {
    CAPTURE(r);
    // Received: R - 1 chunks' worth, each byte at most once, only from the previous rank of a ring in use.
    CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "scratch") == (ranks - 1) * shard);
    std::set<std::uint32_t> sources;
    for (std::uint32_t c = 0; c < used_channels && ranks > 1; ++c) {
      sources.insert((r + ranks - p::ring_stride(ranks, c, spread_rings)) % ranks);
    }
    std::vector<pt::Range> received;
    for (std::uint32_t q = 0; q < ranks; ++q) {
      const std::vector<pt::Range> from = ledger.ranges(tr::OpKind::kStore, q, r, "scratch");
      if (q != r && !sources.count(q)) CHECK(from.empty());
      received.insert(received.end(), from.begin(), from.end());
    }
    CHECK(pt::disjoint(received));
    if (!spread_rings && ranks > 1) {
      // One ring: every chunk but (r - 1) mod R, whole, from the previous rank.
      const std::uint32_t prev = (r + ranks - 1) % ranks;
      received.push_back({prev * s, (prev + 1) * s});
      CHECK(pt::partitions(received, 0, ranks * s));
    }
    CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "scratch") == (ranks - 1) * shard);
    // The result: one local store of the shard; every input byte read once, locally.
    CHECK(pt::partitions(ledger.ranges(tr::OpKind::kStore, r, r, "out"), kOutOffset, kOutOffset + s));
    CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "out") == 0);
    CHECK(pt::partitions(ledger.ranges(tr::OpKind::kLoad, r, r, "in"), 128, 128 + ranks * s));
    CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "in") == 0);
    CHECK(ledger.flops(r) == doctest::Approx(static_cast<double>(p::kFlopsPerAdd * (ranks - 1) * s / 2)));
  }
}

void check_all_reduce(std::uint32_t ranks, p::AllReduceAlgorithm algorithm, std::uint64_t bytes,
                      std::uint32_t channels, std::uint64_t chunk) {
  CAPTURE(ranks);
  CAPTURE(static_cast<int>(algorithm));
  CAPTURE(bytes);
  CAPTURE(channels);
  CAPTURE(chunk);
  const Built b = build_all_reduce(ranks, algorithm, bytes, channels, chunk);
  const pt::Ledger ledger = run_checked(b.trace, static_cast<std::int64_t>(bytes));
  const auto n = static_cast<std::int64_t>(bytes);
  const auto s = static_cast<std::int64_t>(b.shard);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    CAPTURE(r);
    // R - 1 adds per element of the rank's share: a chunk (ring) or the whole buffer (one-shot).
    CHECK(ledger.flops(r) == doctest::Approx(static_cast<double>(p::kFlopsPerAdd * (ranks - 1) * s / 2)));
    if (algorithm == p::AllReduceAlgorithm::kRing) {
      // Reduce steps: R - 1 chunks in, R - 1 out. Gather steps: every slot but the own one
      // arrives once (from the previous rank of the channel's ring); the own slot is stored
      // locally once.
      CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "scratch") == (ranks - 1) * b.shard);
      CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "out") == (ranks - 1) * b.shard);
      std::vector<pt::Range> slots;
      for (std::uint32_t q = 0; q < ranks; ++q) {
        const std::vector<pt::Range> from = ledger.ranges(tr::OpKind::kStore, q, r, "out");
        if (q != r) slots.insert(slots.end(), from.begin(), from.end());
      }
      const std::vector<pt::Range> own = ledger.ranges(tr::OpKind::kStore, r, r, "out");
      CHECK(pt::partitions(own, kOutOffset + r * s, kOutOffset + (r + 1) * s));
      if (ranks > 1) slots.insert(slots.end(), own.begin(), own.end());
      if (ranks > 1) CHECK(pt::partitions(slots, kOutOffset, kOutOffset + n));
      CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "scratch") + ledger.remote_bytes_by(tr::OpKind::kStore, r, "out") ==
            2 * (ranks - 1) * b.shard);
      CHECK(ledger.remote_bytes_by(tr::OpKind::kLoad, r, "in") == 0);
    } else {
      // Every peer's whole input read once, remotely; nothing stored anywhere but the own output.
      for (std::uint32_t q = 0; q < ranks; ++q) {
        CHECK(pt::partitions(ledger.ranges(tr::OpKind::kLoad, r, q, "in"), 0, n));
      }
      CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "out") == 0);
      CHECK(pt::partitions(ledger.ranges(tr::OpKind::kStore, r, r, "out"), kOutOffset, kOutOffset + n));
      if (ranks > 1) CHECK(ledger.num_waits() > 0);
    }
  }
}

double makespan_ns(const tr::Trace& trace, const tessera::models::SystemSpec& system) {
  return static_cast<double>(tessera::workloads::replay::replay_trace(trace, system).makespan_ps) / 1e3;
}

}  // namespace

TEST_CASE("reduce-scatter ring: every rank gets the sum of its chunk, on 1, 2, 4, 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
    check_reduce_scatter(ranks, 1 << 16, 4, 4 << 10);   // 4 pieces per channel
    check_reduce_scatter(ranks, 1 << 16, 16, 1 << 20);  // one piece per channel
    check_reduce_scatter(ranks, 3000, 7, 128);          // 8-byte units, uneven pieces
    check_reduce_scatter(ranks, 64, 16, 1 << 20);       // fewer units than channels
    check_reduce_scatter(ranks, 1 << 16, 4, 4 << 10, false);  // one ring, as the all-gather's
  }
  for (std::uint32_t ranks : {3u, 6u}) check_reduce_scatter(ranks, 3000, 5, 256);  // a ring and its reverse
}

TEST_CASE("all-reduce ring: every rank gets the sum of all inputs, on 1, 2, 4, 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
    check_all_reduce(ranks, p::AllReduceAlgorithm::kRing, ranks << 16, 4, 4 << 10);
    check_all_reduce(ranks, p::AllReduceAlgorithm::kRing, ranks << 16, 16, 1 << 20);
    check_all_reduce(ranks, p::AllReduceAlgorithm::kRing, ranks * 3000, 7, 128);
    check_all_reduce(ranks, p::AllReduceAlgorithm::kRing, ranks * 2, 3, 128);  // one element per chunk
  }
  check_all_reduce(6, p::AllReduceAlgorithm::kRing, 6 * 3000, 5, 256);
}

TEST_CASE("all-reduce one-shot: every rank gets the sum of all inputs, on 1, 2, 4, 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
    check_all_reduce(ranks, p::AllReduceAlgorithm::kOneShot, 1 << 16, 4, 4 << 10);
    check_all_reduce(ranks, p::AllReduceAlgorithm::kOneShot, 3002, 7, 128);
  }
}

TEST_CASE("ring strides: every channel's ring visits every rank") {
  for (std::uint32_t ranks = 1; ranks <= 9; ++ranks) {
    std::set<std::uint32_t> strides;
    for (std::uint32_t c = 0; c < 16; ++c) {
      const std::uint32_t d = p::ring_stride(ranks, c, true);
      strides.insert(d);
      CHECK(std::gcd(d, ranks) == 1);  // a single cycle through all ranks
      CHECK(p::ring_stride(ranks, c, false) == 1);
    }
    CHECK(strides.size() == (ranks < 3 ? 1u : (ranks & (ranks - 1)) == 0 ? ranks / 2 : 2u));
  }
}

TEST_CASE("all-reduce: impossible sizes are refused, flags counted") {
  p::AllReduceSpec spec;
  spec.bytes = 3000;
  CHECK_FALSE(p::all_reduce_problem(spec, 4));  // 750 bytes per chunk
  CHECK(p::all_reduce_problem(spec, 8).value_or("").find("not a multiple of 16") != std::string::npos);
  spec.algorithm = p::AllReduceAlgorithm::kOneShot;
  CHECK_FALSE(p::all_reduce_problem(spec, 8));
  spec.bytes = 3001;
  CHECK(p::all_reduce_problem(spec, 8).value_or("").find("2-byte elements") != std::string::npos);
  tr::TraceBuilder tb(8);
  CHECK_THROWS_AS(p::append_all_reduce(tb, 8, spec), std::invalid_argument);
  spec.bytes = 1 << 20;
  spec.channels = 16;
  spec.chunk_bytes = 16 << 10;
  CHECK(p::all_reduce_flags(spec, 8) == 2 * 8 * 16);
  spec.algorithm = p::AllReduceAlgorithm::kRing;
  CHECK(p::all_reduce_flags(spec, 8) == 2 * 8 * 16 * 1);  // 8 KiB per channel per chunk: one piece
  CHECK(p::all_reduce_scratch_bytes(spec) == 1 << 20);
  p::ReduceScatterSpec rs;
  rs.shard_bytes = 1 << 20;
  rs.chunk_bytes = 16 << 10;
  CHECK(p::reduce_scatter_flags(rs, 8) == 8 * 16 * 4);
  rs.dtype = tessera::models::compute::Dtype::kFp32;
  rs.shard_bytes = 6;  // not whole 4-byte elements
  CHECK_THROWS_AS(p::append_reduce_scatter(tb, 8, rs), std::invalid_argument);
}

TEST_CASE("all-reduce replayed: no algorithm beats the links, one-shot wins small, the ring large") {
  const auto system = tessera::test::mi300x(8);
  const double links = system.interconnect.link_bandwidth_bytes_per_s * system.interconnect.links_per_gpu;
  std::map<std::pair<int, std::uint64_t>, double> t;
  for (const std::uint64_t bytes : {std::uint64_t{64} << 10, std::uint64_t{16} << 20}) {
    for (const auto algorithm : {p::AllReduceAlgorithm::kRing, p::AllReduceAlgorithm::kOneShot}) {
      CAPTURE(bytes);
      CAPTURE(static_cast<int>(algorithm));
      const double ns = makespan_ns(build_all_reduce(8, algorithm, bytes, 16, 512 << 10).trace, system);
      // Each rank receives at least 7/8 of the buffer (the others' contributions to its own
      // share), over all its links at once; one-shot receives 7 whole buffers.
      const double received = algorithm == p::AllReduceAlgorithm::kRing ? 2.0 * 7 / 8 * bytes : 7.0 * bytes;
      CHECK(ns >= 7.0 / 8 * bytes / links * 1e9);
      CHECK(ns >= received / links * 1e9);
      CHECK(ns < 1e3 * (received / links * 1e9) + 1e5);
      t[{static_cast<int>(algorithm), bytes}] = ns;
    }
  }
  const int ring = static_cast<int>(p::AllReduceAlgorithm::kRing);
  const int one_shot = static_cast<int>(p::AllReduceAlgorithm::kOneShot);
  CHECK(t[{one_shot, 64 << 10}] < t[{ring, 64 << 10}]);  // 1 step against 14 flag round trips
  CHECK(t[{ring, 16 << 20}] < t[{one_shot, 16 << 20}]);  // 1.75 buffers on the links against 7
  MESSAGE(fmt::format("all-reduce on mi300x(8): 64 KiB ring {:.1f} us, one-shot {:.1f} us; 16 MiB ring {:.1f} us, "
                      "one-shot {:.1f} us",
                      t[{ring, 64 << 10}] / 1e3, t[{one_shot, 64 << 10}] / 1e3, t[{ring, 16 << 20}] / 1e3,
                      t[{one_shot, 16 << 20}] / 1e3));
}
