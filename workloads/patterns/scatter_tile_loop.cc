#include "workloads/patterns/scatter_tile_loop.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessera::workloads::patterns {

using trace::Expr;

namespace {

std::uint32_t narrow(std::uint64_t v, const char* what) {
  if (v == 0 || v > 0xFFFF'FFFFULL) throw std::out_of_range(fmt::format("{} ({}) does not fit a divisor", what, v));
  return static_cast<std::uint32_t>(v);
}

}  // namespace

// The same two loops as append_tile_loop (whole groups, then the narrower last group), with the
// counter at `depth` and the pid an expression.
void append_tile_loop_at(trace::ProgramBuilder& p, const GemmTiling& t, std::uint64_t num_wgs, const Expr& pid,
                         int depth, const TileBody& body) {
  if (pid.num_terms > 1) throw std::invalid_argument("tile loop: the pid expression may have one variable term");
  if (depth < 0 || depth >= trace::kNumLoopVars - 1) {
    throw std::invalid_argument(fmt::format("tile loop: depth {} leaves no depth for the body", depth));
  }
  const auto g = static_cast<std::int64_t>(num_wgs);
  const std::uint32_t g32 = narrow(num_wgs, "workgroups");
  const std::uint64_t tiles = t.tiles();
  const std::uint64_t groups_whole = t.tiles_m() / t.group_m;
  const std::uint64_t full_tiles = groups_whole * t.group_m * t.tiles_n();
  const int s0 = kRegScratch;
  const int s1 = kRegScratch + 1;
  // Iterations of tiles below `bound`: (bound - 1 + G - pid) / G, 0 for pid >= bound (pid < G).
  const auto count_below = [&](std::uint64_t bound, int reg) {
    p.set(static_cast<std::uint8_t>(reg), Expr(static_cast<std::int64_t>(bound) - 1 + g) - pid);
  };

  if (full_tiles > 0) {
    const std::uint32_t in_group = narrow(std::uint64_t{t.group_m} * t.tiles_n(), "group_m * tiles_n");
    count_below(full_tiles, s0);
    p.loop(trace::div(trace::reg(s0), g32));
    p.set(kRegTile, pid + trace::loop(depth) * g);
    p.set(static_cast<std::uint8_t>(s0), trace::mod(trace::reg(kRegTile), in_group));
    p.set(kRegPidM, trace::div(trace::reg(kRegTile), in_group) * t.group_m + trace::mod(trace::reg(s0), t.group_m));
    p.set(kRegPidN, trace::div(trace::reg(s0), t.group_m));
    body(p);
    p.end_loop();
  }
  if (full_tiles < tiles) {
    const std::uint64_t first_m = groups_whole * t.group_m;
    const std::uint32_t size_m = narrow(t.tiles_m() - first_m, "last group");
    count_below(tiles, s0);
    count_below(full_tiles, s1);
    p.loop(trace::div(trace::reg(s0), g32) - trace::div(trace::reg(s1), g32));
    count_below(full_tiles, s0);
    p.set(kRegTile, pid + trace::div(trace::reg(s0), g32) * g + trace::loop(depth) * g);
    p.set(static_cast<std::uint8_t>(s0), trace::reg(kRegTile) - Expr(static_cast<std::int64_t>(full_tiles)));
    p.set(kRegPidM, Expr(static_cast<std::int64_t>(first_m)) + trace::mod(trace::reg(s0), size_m));
    p.set(kRegPidN, trace::div(trace::reg(s0), size_m));
    body(p);
    p.end_loop();
  }
}

}  // namespace tessera::workloads::patterns
