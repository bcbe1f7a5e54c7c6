// The all-gather kernels: every rank receives every other shard exactly once by remote stores,
// its own shard once by a local copy, every wait is released, forwarded pieces are acquired
// before they are read, and nothing is read before it arrived.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "ledger.h"
#include "untimed_run.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/reduce_scatter.h"

namespace p = tessera::workloads::patterns;
namespace pt = tessera::workloads::patterns::test;
namespace tr = tessera::workloads::trace;

namespace {

struct Built {
  tr::Trace trace;
  p::AllGatherSpec spec;
};

Built build(std::uint32_t ranks, p::AllGatherAlgorithm algorithm, std::uint64_t shard, std::uint32_t channels,
            std::uint64_t chunk, bool in_place, bool spread_rings = true) {
  tr::TraceBuilder tb(ranks);
  p::AllGatherSpec spec;
  spec.spread_rings = spread_rings;
  spec.algorithm = algorithm;
  spec.shard_bytes = shard;
  spec.channels = channels;
  spec.chunk_bytes = chunk;
  spec.in_place = in_place;
  spec.flag_base = 1000;
  spec.input_buffer = tb.buffer("in", shard);
  spec.output_offset = 64;  // the output need not start at 0
  spec.output_buffer = tb.buffer("out", 64 + shard * ranks);
  tb.rank_barrier();
  if (in_place) {
    // In place, the shard is already in its slot: a kernel before the all-gather wrote it.
    tr::ProgramBuilder produce("produce");
    produce.store(spec.output_buffer, tr::rank(), tr::Expr(64) + tr::rank() * static_cast<std::int64_t>(shard),
                  static_cast<std::int64_t>(shard));
    const std::uint32_t program = tb.program(std::move(produce));
    for (std::uint32_t r = 0; r < ranks; ++r) tb.launch({"produce", r, 0, 1, program, {}});
  }
  p::append_all_gather(tb, ranks, spec);
  tb.sync_all();
  return {std::move(tb).build(), spec};
}

void check_all_gather(std::uint32_t ranks, p::AllGatherAlgorithm algorithm, std::uint64_t shard,
                      std::uint32_t channels, std::uint64_t chunk, bool in_place) {
  CAPTURE(ranks);
  CAPTURE(shard);
  CAPTURE(channels);
  CAPTURE(chunk);
  CAPTURE(in_place);
  const Built b = build(ranks, algorithm, shard, channels, chunk, in_place);
  pt::Ledger ledger(b.trace);
  const pt::RunReport run = pt::run_untimed(b.trace, [&](const pt::ExecutedOp& op) { ledger.add(op); });
  CHECK(run.completed);
  CHECK_MESSAGE(!run.violation, run.violation.value_or(""));
  CHECK(ledger.waits_released());
  const auto s = static_cast<std::int64_t>(shard);
  const std::int64_t base = 64;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    // Every other shard arrives exactly once, by remote stores, in its slot.
    std::vector<pt::Range> received;
    for (std::uint32_t q = 0; q < ranks; ++q) {
      if (q == r) continue;
      for (const pt::Range& range : ledger.ranges(tr::OpKind::kStore, q, r, "out")) received.push_back(range);
    }
    for (std::uint32_t c = 0; c < ranks; ++c) {
      if (c == r) continue;
      std::vector<pt::Range> slot;
      for (const pt::Range& range : received) {
        if (range.first >= base + c * s && range.second <= base + (c + 1) * s) slot.push_back(range);
      }
      CHECK_MESSAGE(pt::partitions(slot, base + c * s, base + (c + 1) * s), fmt::format("rank {} slot {}", r, c));
    }
    CHECK(ledger.remote_bytes_into(tr::OpKind::kStore, r, "out") == (ranks - 1) * shard);
    // The own shard: copied locally once (out of place) or untouched (in place).
    // (In place, the one store is the producer kernel's.)
    const auto own = ledger.ranges(tr::OpKind::kStore, r, r, "out");
    CHECK(pt::partitions(own, base + r * s, base + (r + 1) * s));
    if (in_place) CHECK(own.size() == 1);
    // Sends: the ring forwards R - 1 shards to one peer; one-shot sends its own to R - 1 peers.
    CHECK(ledger.remote_bytes_by(tr::OpKind::kStore, r, "out") == (ranks - 1) * shard);
  }
  if (ranks > 1) CHECK(ledger.num_waits() > 0);
}

}  // namespace

TEST_CASE("all-gather ring: conservation, flags and ordering for 1, 2, 4, 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
    check_all_gather(ranks, p::AllGatherAlgorithm::kRing, 1 << 20, 16, 16 << 10, false);  // 4 pieces per channel
    check_all_gather(ranks, p::AllGatherAlgorithm::kRing, 1 << 20, 4, 1 << 20, true);
    check_all_gather(ranks, p::AllGatherAlgorithm::kRing, 3000, 7, 128, false);  // not a multiple of 128
    check_all_gather(ranks, p::AllGatherAlgorithm::kRing, 256, 16, 1 << 20, false);  // fewer units than channels
    check_all_gather(ranks, p::AllGatherAlgorithm::kRing, 1, 4, 1, false);
  }
}

TEST_CASE("all-gather one-shot: conservation, flags and ordering for 1, 2, 4, 8 ranks") {
  for (std::uint32_t ranks : {1u, 2u, 4u, 8u}) {
    check_all_gather(ranks, p::AllGatherAlgorithm::kOneShot, 1 << 20, 16, 16 << 10, false);
    check_all_gather(ranks, p::AllGatherAlgorithm::kOneShot, 1 << 20, 4, 1 << 20, true);
    check_all_gather(ranks, p::AllGatherAlgorithm::kOneShot, 3000, 7, 128, false);
  }
}

TEST_CASE("all-gather split: near-equal, line-aligned pieces within chunk_bytes") {
  p::AllGatherSpec spec;
  spec.shard_bytes = 2 << 20;
  spec.channels = 16;
  spec.chunk_bytes = 32 << 10;
  const p::AllGatherSplit s = p::split_of(spec);
  CHECK(s.unit_bytes == 128);
  CHECK(s.channels == 16);
  CHECK(s.pieces == 4);  // 128 KiB per channel in 32 KiB pieces
  CHECK(s.start(1) == 32 << 10);
  CHECK(s.start(64) == 2 << 20);
  spec.shard_bytes = 200;  // 8-byte units
  const p::AllGatherSplit odd = p::split_of(spec);
  CHECK(odd.unit_bytes == 8);
  CHECK(odd.channels == 16);
  CHECK(p::all_gather_flags(spec, 8) == 8 * 16 * odd.pieces);
  spec.algorithm = p::AllGatherAlgorithm::kOneShot;
  CHECK(p::all_gather_flags(spec, 8) == 8 * 16);
  spec.shard_bytes = 0;
  CHECK_THROWS_AS(p::split_of(spec), std::invalid_argument);
}

TEST_CASE("all-gather spread rings: channel c forwards to rank + stride(c) only, every shard arrives once") {
  // 8 ranks, 4 channels: strides 1, 3, 5, 7 (reduce_scatter.h ring_stride), one ring per stride.
  constexpr std::uint32_t kRanks = 8;
  constexpr std::uint64_t kShard = 1 << 16;
  const Built b = build(kRanks, p::AllGatherAlgorithm::kRing, kShard, 4, 1 << 20, false);
  pt::Ledger ledger(b.trace);
  pt::walk_all(b.trace, [&](const pt::ExecutedOp& op) { ledger.add(op); });
  const std::uint64_t per_channel = kShard / 4;
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    for (std::uint32_t q = 0; q < kRanks; ++q) {
      std::uint64_t expected = q == r ? kShard : 0;  // the own slot
      for (std::uint32_t c = 0; c < 4; ++c) {
        // Each channel forwards R - 1 shards' worth of its slice to its ring successor.
        if (q == (r + p::ring_stride(kRanks, c, true)) % kRanks) expected += (kRanks - 1) * per_channel;
      }
      CHECK(ledger.bytes(tr::OpKind::kStore, r, q, "out") == expected);
    }
  }
}

TEST_CASE("all-gather ring: each rank forwards to its successor only") {
  const Built b = build(4, p::AllGatherAlgorithm::kRing, 1 << 16, 2, 1 << 20, false, /*spread_rings=*/false);
  pt::Ledger ledger(b.trace);
  pt::walk_all(b.trace, [&](const pt::ExecutedOp& op) { ledger.add(op); });
  for (std::uint32_t r = 0; r < 4; ++r) {
    for (std::uint32_t q = 0; q < 4; ++q) {
      const std::uint64_t expected = q == (r + 1) % 4 ? 3 * (1 << 16) : q == r ? (1 << 16) : 0;
      CHECK(ledger.bytes(tr::OpKind::kStore, r, q, "out") == expected);
    }
  }
}
