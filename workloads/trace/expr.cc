#include "workloads/trace/expr.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace tessera::workloads::trace {

Expr Expr::of(Var v, std::int64_t coef, std::uint32_t div, std::uint32_t mod) {
  Expr e;
  e.add(v, coef, div, mod);
  return e;
}

Expr& Expr::add(Var v, std::int64_t coef, std::uint32_t div, std::uint32_t mod) {
  if (div == 0) throw std::invalid_argument("expression: division by zero");
  if (coef == 0) return *this;
  // The same variable, divisor and modulus: merge the coefficients.
  for (int i = 0; i < num_terms; ++i) {
    Term& t = terms[i];
    if (t.var == static_cast<std::uint8_t>(v) && t.div == div && t.mod == mod) {
      std::int64_t sum = 0;
      if (__builtin_add_overflow(t.coef, coef, &sum)) {
        throw std::out_of_range(fmt::format("the coefficients of {} add up beyond 64 bits", var_name(t.var)));
      }
      t.coef = sum;
      if (t.coef == 0) {
        for (int j = i; j + 1 < num_terms; ++j) terms[j] = terms[j + 1];
        --num_terms;
      }
      return *this;
    }
  }
  if (num_terms == kMaxTerms) {
    throw std::length_error(fmt::format("expression has more than {} terms; set a register first", kMaxTerms));
  }
  terms[num_terms++] = Term{coef, static_cast<std::uint8_t>(v), div, mod};
  return *this;
}

bool operator==(const Expr& a, const Expr& b) {
  if (a.constant != b.constant || a.num_terms != b.num_terms) return false;
  for (int i = 0; i < a.num_terms; ++i) {
    if (!(a.terms[i] == b.terms[i])) return false;
  }
  return true;
}

Expr var(Var v) { return Expr::of(v); }

Expr loop(int depth) {
  if (depth < 0 || depth >= kNumLoopVars) throw std::out_of_range(fmt::format("loop depth {} (0..3)", depth));
  return Expr::of(static_cast<Var>(static_cast<int>(Var::kLoop0) + depth));
}

Expr reg(int index) {
  if (index < 0 || index >= kNumRegs) throw std::out_of_range(fmt::format("register r{} (r0..r7)", index));
  return Expr::of(static_cast<Var>(static_cast<int>(Var::kReg0) + index));
}

namespace {

Term single(const Expr& e, const char* what) {
  if (e.constant != 0 || e.num_terms != 1 || e.terms[0].coef != 1) {
    throw std::invalid_argument(fmt::format("{} applies to a single variable (set a register first)", what));
  }
  return e.terms[0];
}

}  // namespace

Expr div(const Expr& single_term, std::uint32_t divisor) {
  Term t = single(single_term, "division");
  if (t.mod != 0) throw std::invalid_argument("division after a modulo: set a register first");
  if (divisor == 0) throw std::invalid_argument("division by zero");
  std::uint32_t combined = 0;
  if (__builtin_mul_overflow(t.div, divisor, &combined)) throw std::out_of_range("division: the divisors multiply beyond 32 bits");
  return Expr::of(static_cast<Var>(t.var), 1, combined, 0);
}

Expr mod(const Expr& single_term, std::uint32_t modulus) {
  Term t = single(single_term, "modulo");
  if (t.mod != 0) throw std::invalid_argument("two modulos: set a register first");
  if (modulus == 0) throw std::invalid_argument("modulo by zero");
  return Expr::of(static_cast<Var>(t.var), 1, t.div, modulus);
}

Expr operator+(Expr a, const Expr& b) {
  if (__builtin_add_overflow(a.constant, b.constant, &a.constant)) {
    throw std::out_of_range("expression: the constants add up beyond 64 bits");
  }
  for (int i = 0; i < b.num_terms; ++i) {
    const Term& t = b.terms[i];
    a.add(static_cast<Var>(t.var), t.coef, t.div, t.mod);
  }
  return a;
}

Expr operator-(Expr a, const Expr& b) { return std::move(a) + b * -1; }

Expr operator*(Expr a, std::int64_t k) {
  const auto overflow = [] { return std::out_of_range("expression: a product leaves the 64-bit range"); };
  if (__builtin_mul_overflow(a.constant, k, &a.constant)) throw overflow();
  if (k == 0) {
    a.num_terms = 0;
    return a;
  }
  for (int i = 0; i < a.num_terms; ++i) {
    if (__builtin_mul_overflow(a.terms[i].coef, k, &a.terms[i].coef)) throw overflow();
  }
  return a;
}

std::string_view var_name(std::uint8_t v) {
  static constexpr std::string_view kNames[kNumVars] = {"wg", "nwg", "rank", "nranks", "i0", "i1", "i2", "i3",
                                                        "r0", "r1",  "r2",   "r3",     "r4", "r5", "r6", "r7"};
  return v < kNumVars ? kNames[v] : std::string_view("?");
}

std::string to_string(const Expr& e) {
  std::string out;
  for (int i = 0; i < e.num_terms; ++i) {
    const Term& t = e.terms[i];
    std::string atom(var_name(t.var));
    if (t.div != 1) atom += fmt::format("/{}", t.div);
    if (t.mod != 0) atom += fmt::format("%{}", t.mod);
    // Unsigned: the magnitude of the most negative int64 does not fit an int64.
    const std::uint64_t mag = t.coef < 0 ? 0 - static_cast<std::uint64_t>(t.coef) : static_cast<std::uint64_t>(t.coef);
    const std::string term = mag == 1 ? atom : fmt::format("{}*{}", mag, atom);
    if (out.empty()) {
      out = t.coef < 0 ? "-" + term : term;
    } else {
      out += (t.coef < 0 ? " - " : " + ") + term;
    }
  }
  if (out.empty()) return std::to_string(e.constant);
  if (e.constant > 0) out += fmt::format(" + {}", e.constant);
  if (e.constant < 0) out += fmt::format(" - {}", 0 - static_cast<std::uint64_t>(e.constant));
  return out;
}

namespace {

// term := [INT '*'] VAR ['/' INT] ['%' INT] ['*' INT]  |  INT
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::optional<Expr> parse(std::string* error) {
    Expr e;
    skip();
    int sign = 1;
    if (peek() == '-') {
      sign = -1;
      ++pos_;
    } else if (peek() == '+') {
      ++pos_;
    }
    for (;;) {
      if (!term(e, sign)) return fail(error);
      skip();
      if (pos_ == s_.size()) return e;
      const char op = s_[pos_];
      if (op != '+' && op != '-') return fail(error, "expected + or -");
      sign = op == '+' ? 1 : -1;
      ++pos_;
    }
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  char peek() {
    skip();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  std::optional<std::int64_t> integer() {
    skip();
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
    if (ec != std::errc() || end == s_.data() + pos_) return std::nullopt;
    pos_ = static_cast<std::size_t>(end - s_.data());
    return v;
  }
  // The digits at the cursor with the term's sign: "- 9223372036854775808" is in range, so that
  // every constant and coefficient that to_string writes reads back.
  std::optional<std::int64_t> signed_integer(int sign) {
    skip();
    std::uint64_t magnitude = 0;
    const auto [end, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), magnitude);
    const std::uint64_t limit = std::uint64_t{std::numeric_limits<std::int64_t>::max()} + (sign < 0 ? 1 : 0);
    if (ec != std::errc() || end == s_.data() + pos_ || magnitude > limit) {
      problem("integer out of range");
      return std::nullopt;
    }
    pos_ = static_cast<std::size_t>(end - s_.data());
    return sign < 0 ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  }
  std::optional<std::uint8_t> variable() {
    skip();
    std::size_t end = pos_;
    while (end < s_.size() && std::isalnum(static_cast<unsigned char>(s_[end]))) ++end;
    const std::string_view name = s_.substr(pos_, end - pos_);
    for (std::uint8_t v = 0; v < kNumVars; ++v) {
      if (var_name(v) == name) {
        pos_ = end;
        return v;
      }
    }
    return std::nullopt;
  }
  bool term(Expr& e, int sign) {
    std::int64_t coef = sign;
    if (std::isdigit(static_cast<unsigned char>(peek()))) {
      const auto k = signed_integer(sign);
      if (!k) return false;
      if (peek() != '*') {
        // Checked: the sum of the constants must fit the 64 bits the expression holds.
        if (__builtin_add_overflow(e.constant, *k, &e.constant)) return problem("the constant is out of range");
        return true;
      }
      ++pos_;
      coef = *k;
    }
    bool paren = false;
    if (peek() == '(') {
      paren = true;
      ++pos_;
    }
    const auto v = variable();
    if (!v) return problem("expected a variable (wg, nwg, rank, nranks, i0..i3, r0..r7) or an integer");
    std::uint32_t dv = 1;
    std::uint32_t md = 0;
    if (peek() == '/') {
      ++pos_;
      const auto k = integer();
      if (!k || *k <= 0 || *k > 0xffffffff) return problem("expected a positive divisor");
      dv = static_cast<std::uint32_t>(*k);
    }
    if (peek() == '%') {
      ++pos_;
      const auto k = integer();
      if (!k || *k <= 0 || *k > 0xffffffff) return problem("expected a positive modulus");
      md = static_cast<std::uint32_t>(*k);
    }
    if (paren) {
      if (peek() != ')') return problem("expected )");
      ++pos_;
    }
    if (peek() == '*') {
      ++pos_;
      const auto k = integer();
      if (!k) return problem("expected an integer factor");
      if (__builtin_mul_overflow(coef, *k, &coef)) return problem("the coefficient is out of range");
    }
    try {
      e.add(static_cast<Var>(*v), coef, dv, md);
    } catch (const std::exception& ex) {
      return problem(ex.what());
    }
    return true;
  }
  bool problem(std::string message) {
    if (message_.empty()) message_ = fmt::format("{} at column {}", message, pos_ + 1);
    return false;
  }
  std::nullopt_t fail(std::string* error, std::string message = {}) {
    if (!message.empty()) problem(std::move(message));
    if (error != nullptr) *error = message_.empty() ? "malformed expression" : message_;
    return std::nullopt;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::string message_;
};

}  // namespace

std::optional<Expr> parse_expr(std::string_view text, std::string* error) { return Parser(text).parse(error); }

void Expr::throw_out_of_range(const VarValues& vars) const {
  std::string values;
  for (int i = 0; i < num_terms; ++i) {
    const std::string_view name = var_name(terms[i].var);
    if (values.find(fmt::format("{} = ", name)) != std::string::npos) continue;
    values += fmt::format("{}{} = {}", values.empty() ? "" : ", ", name, vars[terms[i].var]);
  }
  throw std::out_of_range(fmt::format("{} leaves the 64-bit integer range (with {})", to_string(*this), values));
}

}  // namespace tessera::workloads::trace
