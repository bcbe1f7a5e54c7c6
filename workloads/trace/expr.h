#pragma once
// Integer expressions of a workgroup's variables: how one workgroup program serves many
// workgroups with different parameters (the compact trace form; docs/trace-format.md,
// "Expressions").
//
// An expression is `constant + sum_k coef_k * ((var_k / div_k) % mod_k)`, with at most
// kMaxTerms terms, integer division rounding toward zero and `mod 0` meaning no modulo. That is
// enough for tile indices (`wg / tiles_n`, `wg % tiles_n`), strides, and, with registers set by
// `set` instructions, for anything a generator needs (a register holds an intermediate).
//
// Variables (Var): the workgroup id and grid size, the rank and the number of ranks, four loop
// counters (innermost loops count from 0), and eight registers (kernel arguments fill them at
// workgroup start; `set` instructions overwrite them).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::workloads::trace {

enum class Var : std::uint8_t {
  kWg = 0,      // "wg": this workgroup's id in the kernel's grid
  kNumWg = 1,   // "nwg": the grid size
  kRank = 2,    // "rank": the GPU the kernel runs on
  kNumRanks = 3,  // "nranks"
  kLoop0 = 4,   // "i0".."i3": loop counters, outermost first
  kReg0 = 8,    // "r0".."r7": registers
};
inline constexpr int kNumLoopVars = 4;
inline constexpr int kNumRegs = 8;
inline constexpr int kNumVars = 16;

using VarValues = std::array<std::int64_t, kNumVars>;

struct Term {
  std::int64_t coef = 1;
  std::uint8_t var = 0;
  std::uint32_t div = 1;  // >= 1
  std::uint32_t mod = 0;  // 0: none
  friend bool operator==(const Term&, const Term&) = default;
};

struct Expr {
  static constexpr int kMaxTerms = 3;
  std::int64_t constant = 0;
  std::array<Term, kMaxTerms> terms{};
  std::uint8_t num_terms = 0;

  Expr() = default;
  Expr(std::int64_t c) : constant(c) {}  // NOLINT: a constant is an expression
  static Expr of(Var v, std::int64_t coef = 1, std::uint32_t div = 1, std::uint32_t mod = 0);

  // The value, or false when it leaves the 64-bit signed range on the way (a product or a
  // sum): a wrapped offset could land inside a buffer and pass its bounds check, so no value
  // from a trace is ever wrapped (docs/robustness.md, "Arithmetic").
  bool try_eval(const VarValues& vars, std::int64_t& out) const {
    std::int64_t v = constant;
    for (int i = 0; i < num_terms; ++i) {
      const Term& t = terms[i];
      std::int64_t x = vars[t.var];
      if (t.div != 1) x /= static_cast<std::int64_t>(t.div);
      if (t.mod != 0) x %= static_cast<std::int64_t>(t.mod);
      std::int64_t product = 0;
      if (__builtin_mul_overflow(t.coef, x, &product) || __builtin_add_overflow(v, product, &v)) return false;
    }
    out = v;
    return true;
  }
  // The value; throws std::out_of_range naming the expression when it leaves the 64-bit range.
  std::int64_t eval(const VarValues& vars) const {
    std::int64_t v = 0;
    if (!try_eval(vars, v)) throw_out_of_range(vars);
    return v;
  }
  bool is_constant() const { return num_terms == 0; }

  // Adds a term; throws std::length_error beyond kMaxTerms (use a register).
  Expr& add(Var v, std::int64_t coef = 1, std::uint32_t div = 1, std::uint32_t mod = 0);

  friend bool operator==(const Expr& a, const Expr& b);

 private:
  [[noreturn]] void throw_out_of_range(const VarValues& vars) const;
};

// Builder sugar: `wg() * 4096 + 64`, `div(wg(), 14) * 262144`, `mod(reg(0), 8)`.
Expr var(Var v);
inline Expr wg() { return var(Var::kWg); }
inline Expr num_wg() { return var(Var::kNumWg); }
inline Expr rank() { return var(Var::kRank); }
inline Expr num_ranks() { return var(Var::kNumRanks); }
Expr loop(int depth);  // i0..i3
Expr reg(int index);   // r0..r7
// Single-term expressions only (the term's div/mod apply to its variable).
Expr div(const Expr& single_term, std::uint32_t divisor);
Expr mod(const Expr& single_term, std::uint32_t modulus);
Expr operator+(Expr a, const Expr& b);
Expr operator*(Expr a, std::int64_t k);
inline Expr operator*(std::int64_t k, Expr a) { return std::move(a) * k; }
Expr operator-(Expr a, const Expr& b);

// The text form: "4096", "wg*4096 + 64", "r1/14%4*262144 - i0", "2*(wg/8)". Names: wg, nwg,
// rank, nranks, i0..i3, r0..r7. to_string gives a form parse reads back to an equal Expr.
std::string to_string(const Expr& e);
// nullopt and a message in `error` for malformed text.
std::optional<Expr> parse_expr(std::string_view text, std::string* error = nullptr);
std::string_view var_name(std::uint8_t var);

}  // namespace tessera::workloads::trace
