// Expressions: the text form reads back to an equal Expr, evaluation follows C++ integer
// rules (division toward zero), and malformed text names its column.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "tests/workloads/trace/trace_test_support.h"
#include "workloads/trace/expr.h"

using namespace tessera::workloads::trace;

namespace {

Expr parsed(const std::string& text) {
  std::string error;
  const auto e = parse_expr(text, &error);
  REQUIRE_MESSAGE(e.has_value(), text, ": ", error);
  return *e;
}

std::string parse_error(const std::string& text) {
  std::string error;
  const auto e = parse_expr(text, &error);
  CHECK_MESSAGE(!e.has_value(), text);
  return error;
}

VarValues values(std::int64_t wg_value, std::int64_t rank_value = 0) {
  VarValues v{};
  v[static_cast<int>(Var::kWg)] = wg_value;
  v[static_cast<int>(Var::kNumWg)] = 304;
  v[static_cast<int>(Var::kRank)] = rank_value;
  v[static_cast<int>(Var::kNumRanks)] = 8;
  return v;
}

}  // namespace

TEST_CASE("expressions print in a form that parses back to an equal expression") {
  const Expr samples[] = {
      Expr(0),
      Expr(-42),
      Expr(9'000'000'000'000LL),
      wg() * 4096 + 64,
      div(reg(1), 14) * 262144 - loop(0),
      mod(div(reg(1), 14), 4) * 262144 - loop(0) * 3 - 1,
      wg() * -1,
      rank() * -7 + num_ranks() + 5,
      mod(wg(), 8) * 2 + div(num_wg(), 3),
      loop(3) + reg(7) - loop(2),
  };
  for (const Expr& e : samples) {
    const std::string text = to_string(e);
    CHECK_MESSAGE(parsed(text) == e, text);
    CHECK(to_string(parsed(text)) == text);
  }
}

TEST_CASE("the documented spellings parse to what they say") {
  CHECK(parsed("4096") == Expr(4096));
  CHECK(parsed("wg*4096 + 64") == wg() * 4096 + 64);
  CHECK(parsed("4096*wg+64") == wg() * 4096 + 64);
  CHECK(parsed("2*(wg/8)") == div(wg(), 8) * 2);
  CHECK(parsed("(wg/8)*2") == div(wg(), 8) * 2);
  CHECK(parsed("r1/14%4*262144 - i0") == mod(div(reg(1), 14), 4) * 262144 - loop(0));
  CHECK(parsed("-wg") == wg() * -1);
  CHECK(parsed("  -3*rank + 7 ") == rank() * -3 + 7);
  CHECK(parsed("wg + wg") == wg() * 2);  // like terms merge
  CHECK(parsed("wg - wg + 1") == Expr(1));
  CHECK(parsed("nwg + nranks") == num_wg() + num_ranks());
}

TEST_CASE("evaluation: division rounds toward zero, modulo keeps the dividend's sign") {
  CHECK(parsed("wg*4096 + 64").eval(values(3)) == 3 * 4096 + 64);
  CHECK(parsed("wg/8").eval(values(15)) == 1);
  CHECK(parsed("wg%8").eval(values(15)) == 7);
  CHECK(parsed("wg/4%3").eval(values(23)) == 2);  // (23 / 4) % 3
  CHECK(parsed("-2*wg + nwg").eval(values(5)) == -10 + 304);
  CHECK(parsed("rank*100 - nranks").eval(values(0, 3)) == 292);
  VarValues v = values(0);
  v[static_cast<int>(Var::kReg0)] = -7;
  CHECK(parsed("r0/2").eval(v) == -3);
  CHECK(parsed("r0%4").eval(v) == -3);
  CHECK(parsed("-1*r0").eval(v) == 7);
}

TEST_CASE("malformed expressions are rejected with the column") {
  CHECK(parse_error("wg*") == "expected an integer factor at column 4");
  CHECK(parse_error("foo").find("expected a variable") != std::string::npos);
  CHECK(parse_error("foo").find("column 1") != std::string::npos);
  CHECK(parse_error("wg + ").find("column") != std::string::npos);
  CHECK(parse_error("wg/0").find("positive divisor") != std::string::npos);
  CHECK(parse_error("wg%-3").find("positive modulus") != std::string::npos);
  CHECK(parse_error("wg * 2 wg").find("expected + or -") != std::string::npos);
  CHECK(parse_error("(wg/2").find("expected )") != std::string::npos);
  CHECK(parse_error("r8").find("expected a variable") != std::string::npos);
  CHECK(parse_error("i4").find("expected a variable") != std::string::npos);
  CHECK(parse_error("wg + rank + i0 + i1").find("more than 3 terms") != std::string::npos);
  CHECK(parse_error("").size() > 0);
}

TEST_CASE("builder sugar refuses what a single term cannot hold") {
  CHECK_THROWS_AS(div(wg() + 1, 2), std::invalid_argument);
  CHECK_THROWS_AS(div(mod(wg(), 4), 2), std::invalid_argument);
  CHECK_THROWS_AS(loop(4), std::out_of_range);
  CHECK_THROWS_AS(reg(8), std::out_of_range);
  CHECK_THROWS_AS(wg() + rank() + loop(0) + loop(1), std::length_error);
  CHECK(var_name(static_cast<std::uint8_t>(Var::kNumRanks)) == "nranks");
}

// Found by probing the fuzz_trace_text target at the 64-bit limits (the sums, products and
// negations below were signed overflow, undefined behaviour that UBSan reports).
TEST_CASE("constants and coefficients beyond 64 bits are errors, not overflow") {
  CHECK(parse_error("9223372036854775807 + 1") == "the constant is out of range at column 24");
  CHECK(parse_error("9223372036854775808") == "integer out of range at column 1");
  CHECK(parse_error("4611686018427387904*wg*2") == "the coefficient is out of range at column 25");
  CHECK(parse_error("9223372036854775807*wg + wg") == "the coefficients of wg add up beyond 64 bits at column 28");
  CHECK(parsed("wg*-9223372036854775808") == Expr::of(Var::kWg, std::numeric_limits<std::int64_t>::min()));
}

TEST_CASE("the most negative constant and coefficient print and parse back") {
  for (const char* text : {"-9223372036854775808", "wg - 9223372036854775807 - 1", "-9223372036854775808*wg",
                           "9223372036854775807*wg - 9223372036854775808"}) {
    const Expr e = parsed(text);
    CHECK_MESSAGE(parsed(to_string(e)) == e, text, " printed as ", to_string(e));
  }
  CHECK(to_string(parsed("wg - 9223372036854775807 - 1")) == "wg - 9223372036854775808");
  CHECK(to_string(parsed("-9223372036854775808*wg")) == "-9223372036854775808*wg");
}

TEST_CASE("evaluation never wraps: a product or sum beyond 64 bits is reported with the values") {
  VarValues v{};
  v[static_cast<int>(Var::kReg0) + 1] = std::int64_t{1} << 62;
  std::int64_t out = 0;
  CHECK_FALSE(parsed("4*r1").try_eval(v, out));
  CHECK(parsed("2*r1 - 1").try_eval(v, out) == false);  // 2^63 overflows before the -1
  CHECK(parsed("r1 - 1").try_eval(v, out));
  CHECK(out == (std::int64_t{1} << 62) - 1);
  CHECK_THROWS_WITH_AS(parsed("4*r1").eval(v), "4*r1 leaves the 64-bit integer range (with r1 = 4611686018427387904)",
                       std::out_of_range);
  v[static_cast<int>(Var::kReg0) + 2] = std::numeric_limits<std::int64_t>::max();
  CHECK_FALSE(parsed("r2 + 1").try_eval(v, out));
  CHECK_FALSE(parsed("-1*r2 - 2").try_eval(v, out));
  // The builder's arithmetic is checked too (generators build offsets from config sizes).
  CHECK_THROWS_AS(reg(1) * (std::int64_t{1} << 62) * 4, std::out_of_range);
  CHECK_THROWS_AS(Expr(std::numeric_limits<std::int64_t>::max()) + Expr(1), std::out_of_range);
  CHECK_THROWS_AS(div(div(wg(), 1u << 20), 1u << 20), std::out_of_range);
}
