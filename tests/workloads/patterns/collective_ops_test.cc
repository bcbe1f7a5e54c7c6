// The broadcast, reduce and all-to-all kernels. Untimed: every output byte holds what the
// collective promises (followed symbolically through every load and store: which ranks'
// contributions, and which input element), every wait is released, nothing is read before it
// arrived, and each rank moves the bytes its header documents. Replayed: the run completes, each
// link carries exactly the bytes the algorithm sends over it, and one-shot broadcast on two GPUs
// takes the time of its bytes on the link plus what cannot overlap them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "ledger.h"
#include "tests/support/test_systems.h"
#include "untimed_run.h"
#include "workloads/patterns/all_to_all.h"
#include "workloads/patterns/broadcast.h"
#include "workloads/patterns/reduce.h"
#include "workloads/patterns/reduce_scatter.h"
#include "workloads/replay/replay.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;
namespace rp = tessera::workloads::replay;

namespace {

// Buffers need not start at 0: offsets that differ catch a kernel that mixes them up.
constexpr std::uint64_t kInOffset = 128;
constexpr std::uint64_t kOutOffset = 64;
constexpr std::uint64_t kScratchOffset = 256;

// ---- What each byte holds ----
//
// Per byte of every buffer copy: the set of ranks whose data it carries (a bit mask) and the
// input element it carries them for (its byte offset in the input buffer). A buffer that no op
// stores to is an input: rank q's byte o holds ({q}, o). A workgroup's loads since its last
// store accumulate: the first starts the value, each further one adds (same elements, disjoint
// ranks: a contribution counted twice is an error); a store writes the value (a store with
// nothing loaded writes fresh data of the issuer at its own offsets, as a producer kernel).
struct Cell {
  std::uint32_t mask = 0;
  std::int64_t origin = -1;
  bool operator==(const Cell& o) const { return mask == o.mask && origin == o.origin; }
};

struct Tracked {
  pt::RunReport run;
  std::optional<std::string> problem;  // the tracker's first
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<Cell>> data;  // (rank, buffer)
};

Tracked track(const tr::Trace& trace, pt::Ledger& ledger) {
  Tracked t;
  std::set<std::uint32_t> written;
  for (const tr::Program& program : trace.programs) {
    for (const tr::Instr& in : program.instrs) {
      if (in.kind == tr::OpKind::kStore) written.insert(in.buffer);
    }
  }
  const auto data_of = [&](std::uint32_t rank, std::uint32_t buffer) -> std::vector<Cell>& {
    auto it = t.data.find({rank, buffer});
    if (it != t.data.end()) return it->second;
    std::vector<Cell> cells(trace.buffers[buffer].bytes);
    if (!written.count(buffer)) {
      for (std::size_t o = 0; o < cells.size(); ++o) cells[o] = {1u << rank, static_cast<std::int64_t>(o)};
    }
    return t.data.emplace(std::make_pair(rank, buffer), std::move(cells)).first->second;
  };
  struct Accumulator {
    std::vector<Cell> value;
    bool stored = true;  // the next load starts a new value
  };
  std::map<std::pair<std::uint32_t, std::uint64_t>, Accumulator> accumulators;  // (kernel, wg)
  const auto fail = [&](const pt::ExecutedOp& e, const std::string& what) {
    if (t.problem) return;
    t.problem = fmt::format("kernel '{}' rank {} wg {} instr {} ({} '{}' of rank {} [{}, {})): {}",
                            trace.kernels[e.kernel].name, e.rank, e.wg, e.op.instr, tr::op_name(e.op.kind),
                            trace.buffers[e.op.buffer].name, e.op.rank(), e.op.offset(),
                            e.op.offset() + e.op.bytes(), what);
  };
  t.run = pt::run_untimed(trace, [&](const pt::ExecutedOp& e) {
    ledger.add(e);
    if (!tr::is_load(e.op.kind) && e.op.kind != tr::OpKind::kStore) return;
    const auto owner = static_cast<std::uint32_t>(e.op.rank());
    const std::int64_t lo = e.op.offset();
    const std::int64_t n = e.op.bytes();
    if (owner >= trace.ranks || lo < 0 || n <= 0 ||
        lo + n > static_cast<std::int64_t>(trace.buffers[e.op.buffer].bytes)) {
      return;  // the executor reports it
    }
    std::vector<Cell>& cells = data_of(owner, e.op.buffer);
    Accumulator& acc = accumulators[{e.kernel, e.wg}];
    if (tr::is_load(e.op.kind)) {
      const std::vector<Cell> loaded(cells.begin() + lo, cells.begin() + lo + n);
      for (const Cell& c : loaded) {
        if (c.mask == 0) return fail(e, "loads bytes that hold nothing");
      }
      if (acc.stored) {
        acc.value = loaded;
        acc.stored = false;
        return;
      }
      if (acc.value.size() != loaded.size()) return fail(e, "adds a range of another size");
      for (std::size_t i = 0; i < loaded.size(); ++i) {
        if (acc.value[i].origin != loaded[i].origin) return fail(e, "adds different elements");
        if ((acc.value[i].mask & loaded[i].mask) != 0) return fail(e, "counts a contribution twice");
        acc.value[i].mask |= loaded[i].mask;
      }
      return;
    }
    if (acc.value.empty()) {  // a producer: fresh data of the issuer
      for (std::int64_t i = 0; i < n; ++i) cells[lo + i] = {1u << e.rank, lo + i};
    } else if (static_cast<std::int64_t>(acc.value.size()) != n) {
      return fail(e, "stores a range of another size than it loaded");
    } else {
      std::copy(acc.value.begin(), acc.value.end(), cells.begin() + lo);
    }
    acc.stored = true;
  });
  return t;
}

// The common checks of an untimed run; returns the tracked data.
Tracked run_checked(const tr::Trace& trace, pt::Ledger& ledger) {
  Tracked t = track(trace, ledger);
  CHECK(t.run.completed);
  CHECK_MESSAGE(!t.run.violation, t.run.violation.value_or(""));
  CHECK_MESSAGE(!t.problem, t.problem.value_or(""));
  CHECK(ledger.waits_released());
  return t;
}

// True when bytes [lo, lo + n) of `rank`'s `buffer` hold `expected(i)` for i in [0, n).
template <class F>
bool holds(const tr::Trace& trace, const Tracked& t, std::uint32_t rank, const std::string& buffer, std::int64_t lo,
           std::int64_t n, F&& expected) {
  const auto it = t.data.find({rank, *trace.find_buffer(buffer)});
  if (it == t.data.end()) return false;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!(it->second[lo + i] == expected(i))) {
      MESSAGE(fmt::format("rank {} '{}' byte {}: mask {:#x} origin {}", rank, buffer, lo + i, it->second[lo + i].mask,
                          it->second[lo + i].origin));
      return false;
    }
  }
  return true;
}

std::uint32_t all_ranks(std::uint32_t ranks) { return (1u << ranks) - 1; }

// Flag ids the trace releases, as (home rank, id).
std::set<std::pair<std::int64_t, std::int64_t>> released_flags(const tr::Trace& trace) {
  std::set<std::pair<std::int64_t, std::int64_t>> flags;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (e.op.kind == tr::OpKind::kRelease) flags.insert({e.op.flag_rank(), e.op.flag_id()});
  });
  return flags;
}

// Every flag lies in [flag_base, flag_base + used), and each (home, id) is released once per run
// (checked by the count of releases against the distinct flags).
void check_flags(const tr::Trace& trace, std::uint64_t flag_base, std::uint64_t used) {
  std::size_t releases = 0;
  pt::walk_all(trace, [&](const pt::ExecutedOp& e) {
    if (e.op.kind != tr::OpKind::kRelease && e.op.kind != tr::OpKind::kWait) return;
    CHECK(e.op.flag_id() >= static_cast<std::int64_t>(flag_base));
    CHECK(e.op.flag_id() < static_cast<std::int64_t>(flag_base + used));
    if (e.op.kind == tr::OpKind::kRelease) {
      CHECK(e.op.value() == 1);
      ++releases;
    }
  });
  CHECK(released_flags(trace).size() == releases);
}

// ---- Builders ----

// A kernel after the collective on the same stream of `rank` that reads the whole output: the
// untimed run's dataflow check then fails if the collective's kernel could end before the
// output is complete there.
void consume_output(tr::TraceBuilder& tb, std::uint32_t output, std::uint64_t bytes,
                    const std::vector<std::uint32_t>& ranks) {
  tr::ProgramBuilder consume("consume");
  consume.load(output, tr::rank(), static_cast<std::int64_t>(kOutOffset), static_cast<std::int64_t>(bytes));
  const std::uint32_t program = tb.program(std::move(consume));
  for (std::uint32_t r : ranks) tb.launch({"consume", r, 0, 1, program, {}});
}

std::vector<std::uint32_t> every_rank(std::uint32_t ranks) {
  std::vector<std::uint32_t> all;
  for (std::uint32_t r = 0; r < ranks; ++r) all.push_back(r);
  return all;
}

struct Case {
  std::uint32_t ranks = 2;
  std::uint32_t root = 0;
  std::uint64_t bytes = 1 << 16;
  std::uint32_t channels = 4;
  std::uint64_t chunk = 4 << 10;
  bool spread_rings = false;
  bool in_place = false;  // broadcast
  bool consume = true;    // a kernel reads the output after the collective (consume_output)
};

tr::Trace build_broadcast(const Case& c, p::BroadcastAlgorithm algorithm, p::BroadcastSpec* used = nullptr) {
  tr::TraceBuilder tb(c.ranks);
  p::BroadcastSpec spec;
  spec.algorithm = algorithm;
  spec.root = c.root;
  spec.bytes = c.bytes;
  spec.channels = c.channels;
  spec.chunk_bytes = c.chunk;
  spec.spread_rings = c.spread_rings;
  spec.in_place = c.in_place;
  spec.flag_base = 1000;
  spec.input_offset = kInOffset;
  spec.input_buffer = tb.buffer("in", kInOffset + c.bytes);
  spec.output_offset = kOutOffset;
  spec.output_buffer = tb.buffer("out", kOutOffset + c.bytes);
  tb.rank_barrier();
  if (c.in_place) {
    // In place, the message is already in the root's output: a kernel before the broadcast wrote it.
    tr::ProgramBuilder produce("produce");
    produce.store(spec.output_buffer, tr::rank(), static_cast<std::int64_t>(kOutOffset),
                  static_cast<std::int64_t>(c.bytes));
    const std::uint32_t program = tb.program(std::move(produce));
    tb.launch({"produce", c.root, 0, 1, program, {}});
  }
  p::append_broadcast(tb, c.ranks, spec);
  if (c.consume) consume_output(tb, spec.output_buffer, c.bytes, every_rank(c.ranks));
  tb.sync_all();
  if (used) *used = spec;
  return std::move(tb).build();
}

tr::Trace build_reduce(const Case& c, p::ReduceAlgorithm algorithm, p::ReduceSpec* used = nullptr) {
  tr::TraceBuilder tb(c.ranks);
  p::ReduceSpec spec;
  spec.algorithm = algorithm;
  spec.root = c.root;
  spec.bytes = c.bytes;
  spec.channels = c.channels;
  spec.chunk_bytes = c.chunk;
  spec.spread_rings = c.spread_rings;
  spec.flag_base = 1000;
  spec.input_offset = kInOffset;
  spec.input_buffer = tb.buffer("in", kInOffset + c.bytes);
  spec.output_offset = kOutOffset;
  spec.output_buffer = tb.buffer("out", kOutOffset + c.bytes);
  if (p::reduce_scratch_bytes(spec) > 0) {
    spec.scratch_offset = kScratchOffset;
    spec.scratch_buffer = tb.buffer("scratch", kScratchOffset + p::reduce_scratch_bytes(spec));
  }
  tb.rank_barrier();
  p::append_reduce(tb, c.ranks, spec);
  if (c.consume) consume_output(tb, spec.output_buffer, c.bytes, {c.root});
  tb.sync_all();
  if (used) *used = spec;
  return std::move(tb).build();
}

tr::Trace build_all_to_all(const Case& c, p::AllToAllSpec* used = nullptr) {
  tr::TraceBuilder tb(c.ranks);
  p::AllToAllSpec spec;
  spec.bytes = c.bytes;
  spec.channels = c.channels;
  spec.chunk_bytes = c.chunk;
  spec.flag_base = 1000;
  spec.input_offset = kInOffset;
  spec.input_buffer = tb.buffer("in", kInOffset + c.bytes);
  spec.output_offset = kOutOffset;
  spec.output_buffer = tb.buffer("out", kOutOffset + c.bytes);
  tb.rank_barrier();
  p::append_all_to_all(tb, c.ranks, spec);
  if (c.consume) consume_output(tb, spec.output_buffer, c.bytes, every_rank(c.ranks));
  tb.sync_all();
  if (used) *used = spec;
  return std::move(tb).build();
}

// The rank `k` strides of 1 after `from` (the chains without spread rings).
std::uint32_t after(std::uint32_t from, std::uint32_t k, std::uint32_t ranks) { return (from + k) % ranks; }

// ---- Checks per collective ----

void check_broadcast(const Case& c, p::BroadcastAlgorithm algorithm) {
  CAPTURE(c.ranks);
  CAPTURE(c.root);
  CAPTURE(c.bytes);
  CAPTURE(c.channels);
  CAPTURE(c.chunk);
  CAPTURE(c.spread_rings);
  CAPTURE(c.in_place);
  CAPTURE(static_cast<int>(algorithm));
  p::BroadcastSpec spec;
  const tr::Trace trace = build_broadcast(c, algorithm, &spec);
  pt::Ledger ledger(trace);
  const Tracked t = run_checked(trace, ledger);
  const auto n = static_cast<std::int64_t>(c.bytes);
  const std::int64_t origin = c.in_place ? kOutOffset : kInOffset;  // where the root's message lies
  const std::string source = c.in_place ? "out" : "in";
  for (std::uint32_t r = 0; r < c.ranks; ++r) {
    CAPTURE(r);
    // Every rank's output is the root's message, element for element.
    CHECK(holds(trace, t, r, "out", kOutOffset, n, [&](std::int64_t i) { return Cell{1u << c.root, origin + i}; }));
    // Only the root's message is read: no other rank touches its own input.
    if (r != c.root) CHECK(ledger.bytes(tr::OpKind::kLoad, r, r, "in") == 0);
    const std::uint64_t received = ledger.remote_bytes_into(tr::OpKind::kStore, r, "out") +
                                   ledger.remote_bytes_by(tr::OpKind::kLoad, r, source);
    CHECK(received == (r == c.root ? 0 : c.bytes));
  }
  // The root's own output: its copy of the input, or in place the producer kernel's store.
  CHECK(pt::partitions(ledger.ranges(tr::OpKind::kStore, c.root, c.root, "out"), kOutOffset, kOutOffset + n));
  std::uint64_t crossing = 0;
  for (std::uint32_t r = 0; r < c.ranks; ++r) {
    crossing +=
        ledger.remote_bytes_by(tr::OpKind::kStore, r, "out") + ledger.remote_bytes_by(tr::OpKind::kLoad, r, source);
  }
  CHECK(crossing == (c.ranks - 1) * c.bytes);  // R - 1 copies cross the links, either way
  if (algorithm == p::BroadcastAlgorithm::kRing && !c.spread_rings) {
    // One chain: root, root + 1, ..., each sending the whole message to its successor.
    for (std::uint32_t k = 0; k + 1 < c.ranks; ++k) {
      CHECK(ledger.bytes(tr::OpKind::kStore, after(c.root, k, c.ranks), after(c.root, k + 1, c.ranks), "out") ==
            c.bytes);
    }
  }
  if (algorithm == p::BroadcastAlgorithm::kOneShot) {
    for (std::uint32_t r = 0; r < c.ranks; ++r) {
      if (r == c.root) continue;
      CHECK(pt::partitions(ledger.ranges(tr::OpKind::kLoad, r, c.root, source), origin, origin + n));
      CHECK(pt::partitions(ledger.ranges(tr::OpKind::kStore, r, r, "out"), kOutOffset, kOutOffset + n));
    }
  }
  check_flags(trace, spec.flag_base, p::broadcast_flags(spec, c.ranks));
}

void check_reduce(const Case& c, p::ReduceAlgorithm algorithm) {
  CAPTURE(c.ranks);
  CAPTURE(c.root);
  CAPTURE(c.bytes);
  CAPTURE(c.channels);
  CAPTURE(c.chunk);
  CAPTURE(c.spread_rings);
  CAPTURE(static_cast<int>(algorithm));
  p::ReduceSpec spec;
  const tr::Trace trace = build_reduce(c, algorithm, &spec);
  pt::Ledger ledger(trace);
  const Tracked t = run_checked(trace, ledger);
  const auto n = static_cast<std::int64_t>(c.bytes);
  const double elements = static_cast<double>(c.bytes) / 2;  // fp16
  // The root's output is the sum of every rank's input, element for element.
  CHECK(holds(trace, t, c.root, "out", kOutOffset, n,
              [&](std::int64_t i) { return Cell{all_ranks(c.ranks), static_cast<std::int64_t>(kInOffset) + i}; }));
  CHECK(pt::partitions(ledger.ranges(tr::OpKind::kStore, c.root, c.root, "out"), kOutOffset, kOutOffset + n));
  double flops = 0;
  std::uint64_t crossing = 0;
  for (std::uint32_t r = 0; r < c.ranks; ++r) {
    CAPTURE(r);
    flops += ledger.flops(r);
    // Every input byte is read once, by its own rank (ring) or by the root (one-shot).
    const std::uint64_t read = ledger.bytes(tr::OpKind::kLoad, r, r, "in") +
                               (r == c.root ? 0 : ledger.bytes(tr::OpKind::kLoad, c.root, r, "in"));
    CHECK(read == c.bytes);
    if (r != c.root) {  // only the root's output is written
      CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "out") == 0);
      CHECK(ledger.bytes(tr::OpKind::kStore, r, r, "out") == 0);
    }
    crossing +=
        ledger.remote_bytes_by(tr::OpKind::kStore, r, "scratch") + ledger.remote_bytes_by(tr::OpKind::kLoad, r, "in");
    if (algorithm == p::ReduceAlgorithm::kRing && !c.spread_rings) {
      // One chain root + 1, ..., root: all but the root send the message's partial sum on, all
      // but the first add their input to what they received.
      const bool first = c.ranks > 1 && r == after(c.root, 1, c.ranks);
      CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "scratch") == (r == c.root ? 0 : c.bytes));
      CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "scratch") == (first || c.ranks == 1 ? 0 : c.bytes));
      CHECK(ledger.flops(r) == doctest::Approx(first || c.ranks == 1 ? 0.0 : p::kFlopsPerAdd * elements));
      if (r != c.root) CHECK(ledger.bytes(tr::OpKind::kStore, r, after(r, 1, c.ranks), "scratch") == c.bytes);
    }
    if (algorithm == p::ReduceAlgorithm::kOneShot) {
      // The root pulls every peer's whole input once; nothing else crosses a link.
      if (r != c.root) {
        CHECK(pt::partitions(ledger.ranges(tr::OpKind::kLoad, c.root, r, "in"), kInOffset, kInOffset + n));
      }
      CHECK(ledger.flops(r) == doctest::Approx(r == c.root ? p::kFlopsPerAdd * (c.ranks - 1) * elements : 0.0));
    }
  }
  CHECK(crossing == (c.ranks - 1) * c.bytes);
  CHECK(flops == doctest::Approx(p::kFlopsPerAdd * (c.ranks - 1) * elements));  // R - 1 adds per element
  check_flags(trace, spec.flag_base, p::reduce_flags(spec, c.ranks));
}

void check_all_to_all(const Case& c) {
  CAPTURE(c.ranks);
  CAPTURE(c.bytes);
  CAPTURE(c.channels);
  CAPTURE(c.chunk);
  p::AllToAllSpec spec;
  const tr::Trace trace = build_all_to_all(c, &spec);
  pt::Ledger ledger(trace);
  const Tracked t = run_checked(trace, ledger);
  const auto block = static_cast<std::int64_t>(c.bytes / c.ranks);
  for (std::uint32_t j = 0; j < c.ranks; ++j) {
    CAPTURE(j);
    for (std::uint32_t s = 0; s < c.ranks; ++s) {
      CAPTURE(s);
      // Rank s's block j in rank j's slot s, element for element, stored once by rank s.
      const std::int64_t slot = kOutOffset + s * block;
      CHECK(holds(trace, t, j, "out", slot, block,
                  [&](std::int64_t i) { return Cell{1u << s, static_cast<std::int64_t>(kInOffset) + j * block + i}; }));
      CHECK(pt::partitions(ledger.ranges(tr::OpKind::kStore, s, j, "out"), slot, slot + block));
    }
    // (R - 1) / R of the message out and in over the links; the input read once, locally.
    CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, j, "out") == (c.ranks - 1) * c.bytes / c.ranks);
    CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, j, "out") == (c.ranks - 1) * c.bytes / c.ranks);
    CHECK(pt::partitions(ledger.ranges(tr::OpKind::kLoad, j, j, "in"), kInOffset, kInOffset + c.ranks * block));
    CHECK(ledger.flops(j) == 0);
  }
  check_flags(trace, spec.flag_base, p::all_to_all_flags(spec, c.ranks));
}

// ---- Replay ----

// The counter whose name ends with `suffix` (0 when the models registered none: a counter that
// was never touched may be absent).
std::uint64_t counter(const rp::ReplayResult& r, const std::string& suffix) {
  for (const auto& e : r.statistics.entries) {
    if (e.name.size() >= suffix.size() && e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return std::get<tessera::sim::stats::Counter>(e.value).value();
    }
  }
  return 0;
}

// Bytes carried by the link from GPU a to GPU b.
std::uint64_t link_bytes(const rp::ReplayResult& r, std::uint32_t a, std::uint32_t b) {
  return counter(r, fmt::format("gpu[{}].xgmi_to[{}].bytes_carried", a, b));
}

// Replays on a full mesh of MI300X and checks that it completes, that each link carries the
// bytes `expected(a, b)`, and that it takes at least the busiest link's bytes at that link's rate.
template <class F>
void replay_checked(const tr::Trace& trace, F&& expected) {
  const auto system = tessera::test::mi300x(trace.ranks);
  rp::ReplayResult r;
  REQUIRE_NOTHROW(r = rp::replay_trace(trace, system));
  CHECK(r.complete);
  for (const auto& k : r.kernels) CHECK(k.completed);
  // A full mesh splits each GPU's links evenly over its peers (models/topology).
  const double pair_bandwidth = static_cast<double>(system.interconnect.links_per_gpu / (trace.ranks - 1)) *
                                system.interconnect.link_bandwidth_bytes_per_s;
  std::uint64_t busiest = 0;
  for (std::uint32_t a = 0; a < trace.ranks; ++a) {
    for (std::uint32_t b = 0; b < trace.ranks; ++b) {
      if (a == b) continue;
      CAPTURE(a);
      CAPTURE(b);
      CHECK(link_bytes(r, a, b) == expected(a, b));
      busiest = std::max<std::uint64_t>(busiest, expected(a, b));
    }
  }
  CHECK(static_cast<double>(r.makespan_ps) >= static_cast<double>(busiest) / pair_bandwidth * 1e12);
}

}  // namespace

TEST_CASE("broadcast: every rank gets the root's message, on 1 to 4 and 8 ranks") {
  for (const auto algorithm : {p::BroadcastAlgorithm::kRing, p::BroadcastAlgorithm::kOneShot}) {
    for (std::uint32_t ranks : {1u, 2u, 3u, 4u, 8u}) {
      for (std::uint32_t root : {0u, ranks - 1}) {
        check_broadcast({ranks, root, 1 << 16, 4, 4 << 10, false, false}, algorithm);  // 4 pieces per channel
        check_broadcast({ranks, root, 1 << 16, 16, 1 << 20, true, false}, algorithm);  // one piece per channel
        check_broadcast({ranks, root, 3000, 7, 128, true, false}, algorithm);          // 8-byte units, uneven pieces
        check_broadcast({ranks, root, 64, 16, 1 << 20, false, false}, algorithm);      // fewer units than channels
        check_broadcast({ranks, root, 1 << 16, 4, 4 << 10, true, true}, algorithm);    // in place
      }
    }
  }
}

TEST_CASE("reduce: the root gets the sum of every rank's input, on 1 to 4 and 8 ranks") {
  for (const auto algorithm : {p::ReduceAlgorithm::kRing, p::ReduceAlgorithm::kOneShot}) {
    for (std::uint32_t ranks : {1u, 2u, 3u, 4u, 8u}) {
      for (std::uint32_t root : {0u, ranks - 1}) {
        check_reduce({ranks, root, 1 << 16, 4, 4 << 10, false, false}, algorithm);
        check_reduce({ranks, root, 1 << 16, 16, 1 << 20, true, false}, algorithm);
        check_reduce({ranks, root, 3000, 7, 128, true, false}, algorithm);
        check_reduce({ranks, root, 64, 16, 1 << 20, false, false}, algorithm);
      }
    }
  }
}

TEST_CASE("all-to-all: block j of rank s lands in rank j's slot s, on 1 to 4 and 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 3u, 4u, 8u}) {
    check_all_to_all({ranks, 0, ranks << 16, 4, 4 << 10});
    check_all_to_all({ranks, 0, ranks << 16, 16, 1 << 20});
    check_all_to_all({ranks, 0, ranks * 3000, 7, 128});
    check_all_to_all({ranks, 0, ranks * 64, 16, 1 << 20});
  }
}

TEST_CASE("rooted rings with spread strides: each channel's chain visits every rank once") {
  // Four ranks, four channels: strides 1 and 3 (reduce_scatter.h ring_stride), so the chains of
  // channels 1 and 3 run backwards; each channel's slice crosses R - 1 links of its own chain.
  constexpr std::uint32_t kRanks = 4;
  const Case c{kRanks, 1, 1 << 16, 4, 1 << 20, true, false};
  const std::uint64_t slice = c.bytes / 4;
  const auto chain_bytes = [&](std::uint32_t a, std::uint32_t b, bool towards_root) {
    std::uint64_t total = 0;
    for (std::uint32_t ch = 0; ch < 4; ++ch) {
      const std::uint32_t d = p::ring_stride(kRanks, ch, true);
      // A chain edge a -> a + d, except the one that would close the ring: into the root
      // (broadcast) or out of it (reduce).
      const bool closes = towards_root ? a == c.root : b == c.root;
      if (b == (a + d) % kRanks && !closes) total += slice;
    }
    return total;
  };
  const tr::Trace bt = build_broadcast(c, p::BroadcastAlgorithm::kRing);
  pt::Ledger b_ledger(bt);
  pt::walk_all(bt, [&](const pt::ExecutedOp& e) { b_ledger.add(e); });
  const tr::Trace rt = build_reduce(c, p::ReduceAlgorithm::kRing);
  pt::Ledger r_ledger(rt);
  pt::walk_all(rt, [&](const pt::ExecutedOp& e) { r_ledger.add(e); });
  for (std::uint32_t a = 0; a < kRanks; ++a) {
    for (std::uint32_t b = 0; b < kRanks; ++b) {
      if (a == b) continue;
      CAPTURE(a);
      CAPTURE(b);
      CHECK(b_ledger.bytes(tr::OpKind::kStore, a, b, "out") == chain_bytes(a, b, false));
      CHECK(r_ledger.bytes(tr::OpKind::kStore, a, b, "scratch") == chain_bytes(a, b, true));
    }
  }
}

TEST_CASE("replayed on 2 to 4 GPUs: the runs complete and every link carries the algorithm's bytes") {
  for (std::uint32_t ranks : {2u, 3u, 4u}) {
    CAPTURE(ranks);
    const std::uint64_t bytes = ranks << 16;
    const std::uint32_t root = 1;
    const Case c{ranks, root, bytes, 4, 16 << 10, false, false};
    // Broadcast ring: the chain root -> root + 1 -> ... carries the message on each edge.
    replay_checked(build_broadcast(c, p::BroadcastAlgorithm::kRing), [&](std::uint32_t a, std::uint32_t b) {
      return b == after(a, 1, ranks) && b != root ? bytes : 0;
    });
    // Broadcast one-shot: every peer pulls the message from the root (the data flow root -> peer).
    replay_checked(build_broadcast(c, p::BroadcastAlgorithm::kOneShot),
                   [&](std::uint32_t a, std::uint32_t) { return a == root ? bytes : 0; });
    // Reduce ring: the chain root + 1 -> ... -> root carries the partial sums.
    replay_checked(build_reduce(c, p::ReduceAlgorithm::kRing), [&](std::uint32_t a, std::uint32_t b) {
      return b == after(a, 1, ranks) && a != root ? bytes : 0;
    });
    // Reduce one-shot: the root pulls every peer's input.
    replay_checked(build_reduce(c, p::ReduceAlgorithm::kOneShot),
                   [&](std::uint32_t, std::uint32_t b) { return b == root ? bytes : 0; });
    // All-to-all: one block on every link.
    replay_checked(build_all_to_all(c), [&](std::uint32_t, std::uint32_t) { return bytes / ranks; });
  }
}

TEST_CASE("one-shot broadcast on two GPUs takes its bytes over the link plus what cannot overlap them") {
  // 16 MiB from rank 0 over one xGMI link (64 GB/s, 700 ns; IOD hop 20 ns), 64 channels of one
  // 256 KiB piece each: the link bounds the pulls (64 channels ask for 64 x 134 GB/s at their CU
  // ports; 64 KiB in flight per workgroup over a 1.9 us round trip still gives each 35 GB/s).
  // Along the critical path, in order:
  //   the ready flag reaches rank 1 half a round trip after the root's start: 720 ns;
  //   the pulls: one load round trip (20 + 700 + 428 HBM + 700 + 20 ns) then 16 MiB at the link rate;
  //   the last slice's local store, which cannot start before its load ends: 256 KiB at the CU
  //     port (64 B x 2.1 GHz), plus the HBM latency;
  //   the done flag's release writes rank 1's output back to its HBM (16 MiB at 5.3 TB/s), then
  //     reaches the root in 720 ns;
  //   the root's kernel end writes its own copy back the same way (its workgroups waited on done).
  // The sum is within 1 % of the replay: the first-byte latency and the stores' latencies
  // overlap the streaming partly, which the sum counts whole (about 2 us of 274 us).
  auto system = tessera::test::mi300x(2);
  system.interconnect.links_per_gpu = 1;
  const std::uint64_t bytes = 16ULL << 20;
  const std::uint32_t channels = 64;
  const tr::Trace trace =
      build_broadcast({2, 0, bytes, channels, 512 << 10, false, false, false}, p::BroadcastAlgorithm::kOneShot);
  const rp::ReplayResult r = rp::replay_trace(trace, system);
  const double ns = static_cast<double>(r.makespan_ps) / 1e3;
  const double n = static_cast<double>(bytes);
  const double link = system.interconnect.link_bandwidth_bytes_per_s;
  const double port = system.gpu.fabric.cu_port_bytes_per_clock * system.gpu.compute.clock_hz;
  const double hbm = system.gpu.memory.hbm_bandwidth_bytes_per_s;
  const double hop_ns =
      static_cast<double>(system.gpu.fabric.iod_hop_latency_ps + system.interconnect.link_latency_ps) / 1e3;
  const double hbm_ns = static_cast<double>(system.gpu.memory.hbm_latency_ps) / 1e3;
  const double on_link = n / link * 1e9;
  const double expected = hop_ns + (2 * hop_ns + hbm_ns) + on_link + (n / channels / port * 1e9 + hbm_ns) +
                          (n / hbm * 1e9 + hop_ns) + n / hbm * 1e9;
  MESSAGE(fmt::format("one-shot broadcast, 16 MiB, 2 x MI300X over one 64 GB/s link: {:.1f} us (link time {:.1f} us, "
                      "expected {:.1f} us)",
                      ns / 1e3, on_link / 1e3, expected / 1e3));
  CHECK(ns >= on_link);
  CHECK(ns == doctest::Approx(expected).epsilon(0.01));
  // The bytes: the message crosses the link once; in HBM the root reads it once (rank 1's pulls
  // find it in the root's MALL, where the root's own read left it) and each rank writes its
  // output once, plus a line per workgroup at most (what its flag releases write back).
  CHECK(r.link_class_bytes.at("xgmi") == bytes);
  CHECK(link_bytes(r, 0, 1) == bytes);
  CHECK(counter(r, "gpu[0].cache.hbm_read_bytes") == bytes);
  CHECK(counter(r, "gpu[1].cache.hbm_read_bytes") == 0);
  for (const std::uint32_t rank : {0u, 1u}) {
    const std::uint64_t written = counter(r, fmt::format("gpu[{}].cache.hbm_write_bytes", rank));
    CHECK(written >= bytes);
    CHECK(written <= bytes + channels * 128);
  }
}

TEST_CASE("problems: impossible specs are refused, flags counted") {
  p::BroadcastSpec b;
  b.bytes = 3000;
  CHECK_FALSE(p::broadcast_problem(b, 4));
  b.root = 4;
  CHECK(p::broadcast_problem(b, 4).value_or("").find("root 4") != std::string::npos);
  b.root = 0;
  CHECK(p::broadcast_problem(b, 0).value_or("").find("ranks") != std::string::npos);
  b.bytes = 3001;
  CHECK(p::broadcast_problem(b, 4).value_or("").find("2-byte elements") != std::string::npos);
  b.bytes = 0;
  CHECK(p::broadcast_problem(b, 4).has_value());
  b.bytes = 1 << 20;
  b.channels = 0;
  CHECK(p::broadcast_problem(b, 4).value_or("").find("channels") != std::string::npos);
  tr::TraceBuilder tb(4);
  CHECK_THROWS_AS(p::append_broadcast(tb, 4, b), std::invalid_argument);
  CHECK_THROWS_AS(p::broadcast_flags(b, 4), std::invalid_argument);
  b.channels = 16;
  b.chunk_bytes = 16 << 10;
  CHECK(p::broadcast_flags(b, 4) == 16 * 4);  // 64 KiB per channel in 16 KiB pieces
  b.algorithm = p::BroadcastAlgorithm::kOneShot;
  CHECK(p::broadcast_flags(b, 4) == (4 + 1) * 16);

  p::ReduceSpec r;
  r.bytes = 3000;
  r.dtype = tessera::models::compute::Dtype::kFp32;
  r.root = 2;
  CHECK_FALSE(p::reduce_problem(r, 3));
  CHECK(p::reduce_problem(r, 2).value_or("").find("root 2") != std::string::npos);
  r.bytes = 3002;
  CHECK(p::reduce_problem(r, 3).value_or("").find("4-byte elements") != std::string::npos);
  CHECK_THROWS_AS(p::append_reduce(tb, 4, r), std::invalid_argument);
  r.bytes = 1 << 20;
  r.chunk_bytes = 0;
  CHECK(p::reduce_problem(r, 3).value_or("").find("chunk_bytes") != std::string::npos);
  r.chunk_bytes = 16 << 10;
  CHECK(p::reduce_flags(r, 4) == 16 * 4);
  CHECK(p::reduce_scratch_bytes(r) == 1 << 20);
  r.algorithm = p::ReduceAlgorithm::kOneShot;
  CHECK(p::reduce_flags(r, 4) == (4 + 1) * 16);
  CHECK(p::reduce_scratch_bytes(r) == 0);

  p::AllToAllSpec a;
  a.bytes = 3000;
  CHECK_FALSE(p::all_to_all_problem(a, 4));  // 750 bytes per block
  CHECK(p::all_to_all_problem(a, 8).value_or("").find("not a multiple of 16") != std::string::npos);
  a.bytes = 3001;
  CHECK(p::all_to_all_problem(a, 1).value_or("").find("2-byte elements") != std::string::npos);
  a.bytes = 0;
  CHECK(p::all_to_all_problem(a, 4).has_value());
  CHECK_THROWS_AS(p::append_all_to_all(tb, 4, a), std::invalid_argument);
  a.bytes = 4 << 20;
  a.chunk_bytes = 16 << 10;
  CHECK(p::all_to_all_flags(a, 4) == 4 * 16);
}
