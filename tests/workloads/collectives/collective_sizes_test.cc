// The size conventions of nccl-tests (workloads/collectives/collective_sizes.h) in the trace each
// op generates: the per-rank buffers, and the bytes each rank's kernel moves over the links,
// counted by walking every workgroup's program untimed: a store into a peer is sent, a load from
// a peer received. With R ranks and size S (in bytes):
//   ring all_gather, one-shot all_gather, ring reduce_scatter: (R-1)/R x S sent per rank;
//   ring all_reduce: 2 (R-1)/R x S sent per rank; one-shot all_reduce: x S loaded from peers.
// These are the bytes behind nccl-tests' bus factors (collective_figures.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/run_config.h"
#include "workloads/collectives/collective_plan.h"
#include "workloads/collectives/collective_schema.h"
#include "workloads/patterns/nccl_kernels.h"
#include "workloads/collectives/collective_sizes.h"
#include "workloads/collectives/collective_trace.h"
#include "workloads/trace/cursor.h"

namespace c = tessera::workloads::collectives;
namespace tr = tessera::workloads::trace;

namespace {

struct PeerBytes {
  std::vector<std::uint64_t> sent;      // per rank: stored into peers' buffers
  std::vector<std::uint64_t> received;  // per rank: loaded from peers' buffers
};

PeerBytes peer_bytes(const tr::Trace& trace) {
  PeerBytes out{std::vector<std::uint64_t>(trace.ranks, 0), std::vector<std::uint64_t>(trace.ranks, 0)};
  std::vector<tr::CompiledProgram> compiled;
  for (const tr::Program& p : trace.programs) compiled.emplace_back(p);
  for (const tr::Kernel& k : trace.kernels) {
    for (std::uint64_t wg = 0; wg < k.grid; ++wg) {
      tr::Cursor cursor(compiled[k.program], k, wg, trace.ranks);
      for (tr::Op op; cursor.next(op);) {
        if (op.rank() == static_cast<std::int64_t>(k.rank)) continue;
        if (op.kind == tr::OpKind::kStore) out.sent[k.rank] += static_cast<std::uint64_t>(op.bytes());
        if (op.kind == tr::OpKind::kLoad) out.received[k.rank] += static_cast<std::uint64_t>(op.bytes());
      }
    }
  }
  return out;
}

tessera::models::SystemSpec system_named(const std::string& name) {
  return tessera::test::read_run_config_text("system: " + name + "\nworkload: {kind: phold}\n").system;
}

// The plan on an 8-GPU system (Tessera's kernels do not depend on it beyond the params).
c::CollectivePlan plan_of(const c::CollectiveParams& p, std::uint32_t ranks = 8) {
  return c::plan_of(p, system_named(ranks == 8 ? "mi300x-8" : "h200-2"), ranks);
}

std::uint64_t buffer_bytes(const tr::Trace& t, const char* name) {
  const auto index = t.find_buffer(name);
  return index ? t.buffers[*index].bytes : 0;
}

}  // namespace

TEST_CASE("size is the gathered buffer for all_gather, the send buffer for reduce_scatter, the buffer for all_reduce") {
  c::CollectiveParams p;
  p.size_bytes = 8ULL << 20;
  p.op = c::CollectiveOp::kAllGather;
  CHECK(c::buffers_of(p, plan_of(p), 8).input_bytes == 1ULL << 20);  // one rank's share
  CHECK(c::buffers_of(p, plan_of(p), 8).output_bytes == 8ULL << 20);
  CHECK(c::buffers_of(p, plan_of(p), 8).scratch_bytes == 0);
  p.op = c::CollectiveOp::kReduceScatter;
  CHECK(c::buffers_of(p, plan_of(p), 8).input_bytes == 8ULL << 20);
  CHECK(c::buffers_of(p, plan_of(p), 8).output_bytes == 1ULL << 20);
  CHECK(c::buffers_of(p, plan_of(p), 8).scratch_bytes == 8ULL << 20);
  p.op = c::CollectiveOp::kAllReduce;
  CHECK(c::buffers_of(p, plan_of(p), 8).input_bytes == 8ULL << 20);
  CHECK(c::buffers_of(p, plan_of(p), 8).output_bytes == 8ULL << 20);
  CHECK(c::buffers_of(p, plan_of(p), 8).scratch_bytes == 8ULL << 20);
  p.algorithm = c::CollectiveAlgorithm::kOneShot;
  CHECK(c::buffers_of(p, plan_of(p), 8).scratch_bytes == 0);
  p.op = c::CollectiveOp::kAllToAll;
  p.algorithm = c::CollectiveAlgorithm::kAuto;
  CHECK(c::buffers_of(p, plan_of(p), 8).input_bytes == 8ULL << 20);  // R blocks out, R blocks in
  CHECK(c::buffers_of(p, plan_of(p), 8).output_bytes == 8ULL << 20);
  p.op = c::CollectiveOp::kBroadcast;
  CHECK(c::buffers_of(p, plan_of(p), 8).output_bytes == 8ULL << 20);
  // NCCL's receive buffers are its FIFOs, whatever the size.
  p.op = c::CollectiveOp::kAllReduce;
  p.library = c::CollectiveLibrary::kNccl;
  const c::CollectivePlan nccl = plan_of(p);
  REQUIRE(nccl.nccl.has_value());
  CHECK(c::buffers_of(p, nccl, 8).scratch_bytes == tessera::workloads::patterns::nccl_fifo_bytes(*nccl.nccl));
  CHECK(c::element_count(p) == 4ULL << 20);  // fp16
}

TEST_CASE("each op's trace moves the bytes of its algorithm per rank, on 8 and on 2 ranks") {
  struct Case {
    c::CollectiveOp op;
    c::CollectiveAlgorithm algorithm;
    std::uint64_t sent_num, sent_den, received_num, received_den;  // per rank, x S, as num/den
  };
  for (const std::uint32_t r : {8u, 2u}) {
    const tessera::models::SystemSpec system = system_named(r == 8 ? "mi300x-8" : "h200-2");
    const std::vector<Case> cases{
        {c::CollectiveOp::kAllGather, c::CollectiveAlgorithm::kRing, r - 1, r, 0, 1},
        {c::CollectiveOp::kAllGather, c::CollectiveAlgorithm::kOneShot, r - 1, r, 0, 1},
        {c::CollectiveOp::kReduceScatter, c::CollectiveAlgorithm::kRing, r - 1, r, 0, 1},
        {c::CollectiveOp::kAllReduce, c::CollectiveAlgorithm::kRing, 2 * (r - 1), r, 0, 1},
        {c::CollectiveOp::kAllReduce, c::CollectiveAlgorithm::kOneShot, 0, 1, r - 1, 1},
        {c::CollectiveOp::kAllToAll, c::CollectiveAlgorithm::kDirect, r - 1, r, 0, 1},
    };
    for (const Case& k : cases) {
      c::CollectiveParams p;
      p.op = k.op;
      p.algorithm = k.algorithm;
      p.size_bytes = 4ULL << 20;
      p.channels = 4;
      p.chunk_bytes = 128ULL << 10;
      CAPTURE(r);
      CAPTURE(c::op_name(k.op));
      CAPTURE(c::algorithm_name(k.algorithm));
      const tr::Trace t = c::make_collective_trace(p, system);
      CHECK(t.ranks == r);
      const c::CollectiveBuffers b = c::buffers_of(p, plan_of(p, r), r);
      CHECK(buffer_bytes(t, "input") == b.input_bytes);
      CHECK(buffer_bytes(t, "output") == b.output_bytes);
      CHECK(buffer_bytes(t, "scratch") == b.scratch_bytes);
      CHECK(buffer_bytes(t, "fifo") == 0);
      const PeerBytes moved = peer_bytes(t);
      for (std::uint32_t rank = 0; rank < r; ++rank) {
        CHECK(moved.sent[rank] == p.size_bytes * k.sent_num / k.sent_den);
        CHECK(moved.received[rank] == p.size_bytes * k.received_num / k.received_den);
      }
    }
  }
}

TEST_CASE("NCCL's kernels move the bytes of its algorithms into the peers' FIFOs, times the protocol's wire bytes") {
  // Ring (Simple: no flag bytes in the data): all_reduce 2 (R-1)/R x S per rank, all_gather and
  // reduce_scatter (R-1)/R x S; broadcast S from every rank but the last of the chain (root 0:
  // rank R-1), reduce S from every rank but the root. The chain tree all_reduce: S up from every
  // rank but the root, S down from every rank but the leaf R-1. LL doubles every byte.
  for (const std::uint32_t r : {2u, 4u}) {
    const tessera::models::SystemSpec system = system_named(r == 4 ? "h200-8" : "h200-2");
    struct Case {
      c::CollectiveOp op;
      c::CollectiveAlgorithm algorithm;
      c::CollectiveProtocol protocol;
    };
    for (const Case& k : std::vector<Case>{
             {c::CollectiveOp::kAllReduce, c::CollectiveAlgorithm::kRing, c::CollectiveProtocol::kSimple},
             {c::CollectiveOp::kAllReduce, c::CollectiveAlgorithm::kRing, c::CollectiveProtocol::kLL},
             {c::CollectiveOp::kAllReduce, c::CollectiveAlgorithm::kTree, c::CollectiveProtocol::kSimple},
             {c::CollectiveOp::kAllGather, c::CollectiveAlgorithm::kRing, c::CollectiveProtocol::kSimple},
             {c::CollectiveOp::kReduceScatter, c::CollectiveAlgorithm::kRing, c::CollectiveProtocol::kSimple},
             {c::CollectiveOp::kBroadcast, c::CollectiveAlgorithm::kRing, c::CollectiveProtocol::kSimple},
             {c::CollectiveOp::kReduce, c::CollectiveAlgorithm::kRing, c::CollectiveProtocol::kSimple},
         }) {
      c::CollectiveParams p;
      p.library = c::CollectiveLibrary::kNccl;
      p.op = k.op;
      p.algorithm = k.algorithm;
      p.protocol = k.protocol;
      p.ranks = r;
      p.size_bytes = 6ULL << 20;
      CAPTURE(r);
      CAPTURE(c::op_name(k.op));
      CAPTURE(c::algorithm_name(k.algorithm));
      CAPTURE(c::protocol_name(k.protocol));
      const tr::Trace t = c::make_collective_trace(p, system);
      CHECK(buffer_bytes(t, "fifo") == tessera::workloads::patterns::nccl_fifo_bytes(*c::plan_of(p, system, r).nccl));
      const std::uint64_t wire = k.protocol == c::CollectiveProtocol::kLL ? 2 : 1;
      const std::uint64_t s = p.size_bytes * wire;
      const PeerBytes moved = peer_bytes(t);
      for (std::uint32_t rank = 0; rank < r; ++rank) {
        CAPTURE(rank);
        std::uint64_t expected = 0;
        switch (k.op) {
          case c::CollectiveOp::kAllReduce:
            expected = k.algorithm == c::CollectiveAlgorithm::kTree ? (rank != 0 ? s : 0) + (rank + 1 != r ? s : 0)
                                                                     : 2 * (r - 1) * s / r;
            break;
          case c::CollectiveOp::kAllGather:
          case c::CollectiveOp::kReduceScatter: expected = (r - 1) * s / r; break;
          case c::CollectiveOp::kBroadcast: expected = rank + 1 != r ? s : 0; break;
          case c::CollectiveOp::kReduce: expected = rank != 0 ? s : 0; break;
          default: break;
        }
        CHECK(moved.sent[rank] == expected);
        CHECK(moved.received[rank] == 0);  // NCCL stores into the receiver; nothing is loaded from a peer
      }
    }
  }
}

TEST_CASE("on a full mesh NCCL's channels spread over rings of different strides, each hop on another link") {
  const tessera::models::SystemSpec system = system_named("mi300x-8");
  c::CollectiveParams p;
  p.library = c::CollectiveLibrary::kNccl;
  p.protocol = c::CollectiveProtocol::kSimple;
  p.size_bytes = 64ULL << 20;
  const tr::Trace t = c::make_collective_trace(p, system);
  std::vector<tr::CompiledProgram> compiled;
  for (const tr::Program& prog : t.programs) compiled.emplace_back(prog);
  std::uint64_t sent_total = 0;
  for (const tr::Kernel& k : t.kernels) {
    std::vector<bool> peers(8, false);
    for (std::uint64_t wg = 0; wg < k.grid; ++wg) {
      tr::Cursor cursor(compiled[k.program], k, wg, t.ranks);
      for (tr::Op op; cursor.next(op);) {
        if (op.kind != tr::OpKind::kStore || op.rank() == static_cast<std::int64_t>(k.rank)) continue;
        peers[static_cast<std::size_t>(op.rank())] = true;
        sent_total += static_cast<std::uint64_t>(op.bytes());
      }
    }
    // Strides 1, 3, 5, 7: four different next ranks.
    CHECK(std::count(peers.begin(), peers.end(), true) == 4);
  }
  CHECK(sent_total == 8 * (2 * 7 * p.size_bytes / 8));
}

TEST_CASE("iterations launch the kernel back to back on one stream, each with its own flags") {
  c::CollectiveParams p;
  p.size_bytes = 1ULL << 20;
  p.iterations = 3;
  const tr::Trace t = c::make_collective_trace(p, system_named("mi300x-8"));
  REQUIRE(t.kernels.size() == 3 * 8);
  CHECK(t.programs.size() == 3);
  CHECK(t.programs[0].name == "all_reduce_0");
  CHECK(t.programs[2].name == "all_reduce_2");
  for (const tr::Kernel& k : t.kernels) CHECK(k.stream == 0);
  // The flags each iteration waits on and releases: disjoint ranges.
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // [min, max] per program
  std::vector<tr::CompiledProgram> compiled;
  for (const tr::Program& prog : t.programs) compiled.emplace_back(prog);
  for (std::uint32_t prog = 0; prog < t.programs.size(); ++prog) {
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const tr::Kernel& k : t.kernels) {
      if (k.program != prog) continue;
      for (std::uint64_t wg = 0; wg < k.grid; ++wg) {
        tr::Cursor cursor(compiled[prog], k, wg, t.ranks);
        for (tr::Op op; cursor.next(op);) {
          if (op.kind != tr::OpKind::kWait && op.kind != tr::OpKind::kRelease) continue;
          lo = std::min(lo, op.flag_id());
          hi = std::max(hi, op.flag_id());
        }
      }
    }
    ranges.emplace_back(lo, hi);
  }
  CHECK(ranges[0].second < ranges[1].first);
  CHECK(ranges[1].second < ranges[2].first);
  // One iteration: the kernel is named after the op.
  p.iterations = 1;
  CHECK(c::make_collective_trace(p, system_named("mi300x-8")).programs.at(0).name == "all_reduce");
}
