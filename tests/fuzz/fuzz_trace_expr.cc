// libFuzzer target: the trace expression evaluator (workloads/trace/expr.h) and the text form.
//
// The input is 16 variable values (8 bytes each, little-endian) and then an expression's text.
// Text that parses must (1) print as text that parses back to an equal expression, and (2)
// evaluate exactly as a 128-bit reference evaluation says: the same value when every product and
// partial sum fits in 64 bits, and "leaves the range" (try_eval false, eval throwing
// std::out_of_range) when one does not. A wrapped value is a finding: a wrapped offset can land
// inside a buffer and pass its bounds check.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "tests/fuzz/fuzz_check.h"
#include "workloads/trace/expr.h"

namespace {

using namespace tessera::workloads::trace;
using tessera::fuzz::check;

bool fits(__int128 v) {
  return v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max();
}

// The reference: the documented formula in 128 bits, nullopt when a step leaves 64 bits.
std::optional<std::int64_t> reference(const Expr& e, const VarValues& vars) {
  __int128 v = e.constant;
  for (int i = 0; i < e.num_terms; ++i) {
    const Term& t = e.terms[i];
    std::int64_t x = vars[t.var];
    if (t.div != 1) x /= static_cast<std::int64_t>(t.div);
    if (t.mod != 0) x %= static_cast<std::int64_t>(t.mod);
    const __int128 product = static_cast<__int128>(t.coef) * x;
    if (!fits(product)) return std::nullopt;
    v += product;
    if (!fits(v)) return std::nullopt;
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kValueBytes = sizeof(VarValues);
  if (size < kValueBytes) return 0;
  VarValues vars{};
  std::memcpy(vars.data(), data, kValueBytes);
  const std::string_view text(reinterpret_cast<const char*>(data) + kValueBytes, size - kValueBytes);
  std::string error;
  const std::optional<Expr> e = parse_expr(text, &error);
  if (!e) {
    check(!error.empty(), "parse_expr failed without a message");
    return 0;
  }
  const std::string printed = to_string(*e);
  const std::optional<Expr> again = parse_expr(printed);
  check(again.has_value() && *again == *e, fmt::format("\"{}\" prints as \"{}\", which reads back differently", text, printed));

  std::int64_t value = 0;
  const bool ok = e->try_eval(vars, value);
  const std::optional<std::int64_t> expected = reference(*e, vars);
  check(ok == expected.has_value(), fmt::format("\"{}\": try_eval says {}, the 128-bit reference {}", printed, ok,
                                                 expected ? "fits" : "leaves 64 bits"));
  if (ok) check(value == *expected, fmt::format("\"{}\" = {}, the reference says {}", printed, value, *expected));
  bool threw = false;
  try {
    check(e->eval(vars) == value, "eval and try_eval disagree");
  } catch (const std::out_of_range&) {
    threw = true;
  }
  check(threw == !ok, "eval throws exactly when try_eval fails");
  return 0;
}
