#include "workloads/replay/work_bound.h"

#include <algorithm>
#include <array>
#include <vector>

namespace tessera::workloads::replay {
namespace {

using trace::Expr;
using trace::Instr;
using trace::OpKind;
using trace::Var;

// Values are 128-bit so that sums and products of 64-bit quantities stay exact; anything at or
// beyond kInf (2^100) stands for "unbounded", far above what an int64 expression can reach.
__extension__ typedef __int128 Wide;
constexpr Wide kInf = Wide{1} << 100;

Wide clamp(Wide v) { return std::clamp(v, -kInf, kInf); }
bool bounded(Wide v) { return v > -kInf && v < kInf; }

// v * c without overflow: a product beyond kInf is unbounded.
Wide times(Wide v, Wide c) {
  if (v == 0 || c == 0) return 0;
  const Wide magnitude_v = v < 0 ? -v : v;
  const Wide magnitude_c = c < 0 ? -c : c;
  if (magnitude_v >= kInf / magnitude_c) return (v < 0) != (c < 0) ? -kInf : kInf;
  return v * c;
}

struct Interval {
  Wide lo = 0;
  Wide hi = 0;
};
constexpr Interval kUnknown{-kInf, kInf};

Interval hull(const Interval& a, const Interval& b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

// x / d rounds toward zero, so it is monotone: the ends map to the ends.
Interval divided(const Interval& x, std::uint32_t d) {
  const auto div = [d](Wide v) { return bounded(v) ? v / d : v; };
  return {div(x.lo), div(x.hi)};
}

// x % m keeps the sign of x (C++). Within one block of m the ends map to the ends; a range that
// crosses a multiple of m covers every remainder of its sign.
Interval remainder(const Interval& x, std::uint32_t m) {
  const Wide top = m - 1;
  const bool one_block = bounded(x.lo) && bounded(x.hi) && x.lo / m == x.hi / m;
  if (x.lo >= 0) return one_block ? Interval{x.lo % m, x.hi % m} : Interval{0, top};
  if (x.hi <= 0) return one_block ? Interval{x.lo % m, x.hi % m} : Interval{-top, 0};
  return {-top, top};
}

Interval scaled(const Interval& x, std::int64_t c) {
  if (c >= 0) return {times(x.lo, c), times(x.hi, c)};
  return {times(x.hi, c), times(x.lo, c)};
}

using Vars = std::array<Interval, trace::kNumVars>;

Interval eval(const Expr& e, const Vars& vars) {
  Interval sum{e.constant, e.constant};
  for (int i = 0; i < e.num_terms; ++i) {
    const trace::Term& t = e.terms[i];
    Interval x = vars[t.var];
    if (t.div != 1) x = divided(x, t.div);
    if (t.mod != 0) x = remainder(x, t.mod);
    const Interval term = scaled(x, t.coef);
    sum = {clamp(sum.lo + term.lo), clamp(sum.hi + term.hi)};
  }
  return sum;
}

constexpr int var_index(Var v) { return static_cast<int>(v); }

// Per loop instruction: the registers that `set` instructions inside its body write (a bit
// each). Their value at the top of the body is the previous iteration's, so it is unknown there.
std::vector<std::uint8_t> registers_set_in_loops(const std::vector<Instr>& instrs) {
  std::vector<std::uint8_t> written(instrs.size(), 0);
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < instrs.size(); ++i) {
    if (instrs[i].kind == OpKind::kLoop) open.push_back(i);
    if (instrs[i].kind == OpKind::kEndLoop && !open.empty()) open.pop_back();
    if (instrs[i].kind == OpKind::kSet) {
      for (const std::size_t loop : open) written[loop] |= static_cast<std::uint8_t>(1u << instrs[i].target);
    }
  }
  return written;
}

bool moves_bytes(OpKind kind) {
  return trace::is_load(kind) || kind == OpKind::kStore || kind == OpKind::kAtomicAddRange;
}

std::uint64_t to_count(Wide v) {
  if (v <= 0) return 0;
  return v >= Wide{~std::uint64_t{0}} ? ~std::uint64_t{0} : static_cast<std::uint64_t>(v);
}

}  // namespace

WorkBound kernel_work_bound(const trace::Trace& t, std::size_t kernel) {
  const trace::Kernel& k = t.kernels.at(kernel);
  const std::vector<Instr>& instrs = t.programs.at(k.program).instrs;
  const Wide grid = static_cast<Wide>(k.grid);

  // Every workgroup at once: wg is any id of the grid; registers start at 0, then the arguments.
  Vars vars{};
  vars[var_index(Var::kWg)] = {0, grid - 1};
  vars[var_index(Var::kNumWg)] = {grid, grid};
  vars[var_index(Var::kRank)] = {k.rank, k.rank};
  vars[var_index(Var::kNumRanks)] = {t.ranks, t.ranks};
  for (std::size_t i = 0; i < k.args.size() && i < trace::kNumRegs; ++i) {
    vars[var_index(Var::kReg0) + static_cast<int>(i)] = eval(k.args[i], vars);
  }

  const std::vector<std::uint8_t> written = registers_set_in_loops(instrs);
  struct Frame {
    Vars before;       // the variables before the loop: 0 iterations leave them so
    Wide multiplicity;  // of the instructions around the loop
  };
  std::vector<Frame> frames;
  Wide multiplicity = 1;  // times each instruction here runs, at least (product of count lower bounds)
  Wide operations = 0;
  Wide bytes = 0;
  for (std::size_t i = 0; i < instrs.size(); ++i) {
    const Instr& in = instrs[i];
    switch (in.kind) {
      case OpKind::kLoop: {
        const Interval count = eval(in.a, vars);
        frames.push_back({vars, multiplicity});
        const int depth = static_cast<int>(frames.size()) - 1;
        if (depth >= trace::kNumLoopVars) return {};  // not a validated trace
        for (int r = 0; r < trace::kNumRegs; ++r) {
          if ((written[i] >> r) & 1u) vars[var_index(Var::kReg0) + r] = kUnknown;
        }
        vars[var_index(Var::kLoop0) + depth] = {0, std::max<Wide>(count.hi - 1, 0)};
        multiplicity = times(multiplicity, std::max<Wide>(count.lo, 0));
        break;
      }
      case OpKind::kEndLoop: {
        if (frames.empty()) return {};  // not a validated trace
        // After the loop: what the last iteration left, or (no iteration) what was there before.
        for (std::size_t v = 0; v < vars.size(); ++v) vars[v] = hull(frames.back().before[v], vars[v]);
        multiplicity = frames.back().multiplicity;
        frames.pop_back();
        break;
      }
      case OpKind::kSet:
        if (in.target < trace::kNumRegs) vars[var_index(Var::kReg0) + in.target] = eval(in.a, vars);
        break;
      default:
        operations = clamp(operations + multiplicity);
        if (moves_bytes(in.kind)) bytes = clamp(bytes + times(multiplicity, std::max<Wide>(eval(in.c, vars).lo, 0)));
        break;
    }
  }
  return {to_count(times(operations, grid)), to_count(times(bytes, grid))};
}

}  // namespace tessera::workloads::replay
