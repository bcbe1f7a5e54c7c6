#include "sim/config/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include <fmt/format.h>

namespace tessera::sim::config {
namespace {

// 128-bit integers give exact scaling headroom for any mantissa a person writes
// (up to 36 significant digits) times any unit multiplier.
__extension__ typedef unsigned __int128 U128;

constexpr int kMaxSignificantDigits = 36;
constexpr int kMaxExponent = 4000;

// value = (negative ? -1 : 1) * mantissa * 10^exponent, with no trailing zeros in mantissa.
struct Decimal {
  bool negative = false;
  U128 mantissa = 0;
  int exponent = 0;
};

struct Unit {
  std::string_view name;
  U128 multiplier;
  int exp10;
  bool listed;  // shown in error messages; aliases (kB, µs) are not
};

struct Dimension {
  std::string_view what;     // "a size"
  std::string_view example;  // "64 KiB"
  std::string_view base;     // "bytes", for whole-number errors
  std::span<const Unit> units;
};

constexpr U128 kKi = 1024;
constexpr std::array kByteUnits = {
    Unit{"B", 1, 0, true},           Unit{"KB", 1, 3, true},          Unit{"MB", 1, 6, true},
    Unit{"GB", 1, 9, true},          Unit{"TB", 1, 12, true},         Unit{"KiB", kKi, 0, true},
    Unit{"MiB", kKi * kKi, 0, true}, Unit{"GiB", kKi * kKi * kKi, 0, true},
    Unit{"TiB", kKi * kKi * kKi * kKi, 0, true}, Unit{"kB", 1, 3, false},
};
constexpr std::array kTimeUnits = {
    Unit{"ps", 1, 0, true},  Unit{"ns", 1, 3, true},         Unit{"us", 1, 6, true},
    Unit{"ms", 1, 9, true},  Unit{"s", 1, 12, true},         Unit{"\xC2\xB5s", 1, 6, false},
    Unit{"\xCE\xBCs", 1, 6, false},
};
constexpr std::array kFrequencyUnits = {
    Unit{"Hz", 1, 0, true},  Unit{"kHz", 1, 3, true}, Unit{"MHz", 1, 6, true},
    Unit{"GHz", 1, 9, true}, Unit{"THz", 1, 12, true}, Unit{"KHz", 1, 3, false},
};
// A bit is 1/8 byte = 125 * 10^-3 bytes: still an exact decimal scaling.
constexpr std::array kBandwidthUnits = {
    Unit{"B/s", 1, 0, true},
    Unit{"KB/s", 1, 3, true},
    Unit{"MB/s", 1, 6, true},
    Unit{"GB/s", 1, 9, true},
    Unit{"TB/s", 1, 12, true},
    Unit{"KiB/s", kKi, 0, true},
    Unit{"MiB/s", kKi * kKi, 0, true},
    Unit{"GiB/s", kKi * kKi * kKi, 0, true},
    Unit{"TiB/s", kKi * kKi * kKi * kKi, 0, true},
    Unit{"b/s", 125, -3, true},
    Unit{"Kb/s", 125, 0, true},
    Unit{"Mb/s", 125, 3, true},
    Unit{"Gb/s", 125, 6, true},
    Unit{"Tb/s", 125, 9, true},
    Unit{"kB/s", 1, 3, false},
    Unit{"kb/s", 125, 0, false},
    Unit{"bit/s", 125, -3, false},
    Unit{"kbit/s", 125, 0, false},
    Unit{"Kbit/s", 125, 0, false},
    Unit{"Mbit/s", 125, 3, false},
    Unit{"Gbit/s", 125, 6, false},
    Unit{"Tbit/s", 125, 9, false},
};

constexpr Dimension kSize{"a size", "64 KiB", "bytes", kByteUnits};
constexpr Dimension kTime{"a time", "1.5 us", "picoseconds", kTimeUnits};
constexpr Dimension kFrequency{"a frequency", "2.1 GHz", "Hz", kFrequencyUnits};
constexpr Dimension kBandwidth{"a bandwidth", "64 GB/s", "B/s", kBandwidthUnits};

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr U128 pow10(int k) {
  U128 v = 1;
  for (int i = 0; i < k; ++i) v *= 10;
  return v;
}

std::string to_string(U128 v) {
  if (v == 0) return "0";
  std::string out;
  while (v != 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return out;
}

void normalize(Decimal& d) {
  if (d.mantissa == 0) {
    d.exponent = 0;
    return;
  }
  while (d.mantissa % 10 == 0) {
    d.mantissa /= 10;
    ++d.exponent;
  }
}

// Parses a number at the start of `text` ([+-]digits[.digits][e[+-]digits]); `used` gets its
// length. Returns nothing when `text` does not start with a number.
std::optional<Decimal> parse_number_prefix(std::string_view text, std::size_t& used) {
  Decimal d;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) d.negative = text[i++] == '-';
  int significant = 0;
  bool any_digit = false;
  const auto add_digit = [&](char c) {
    any_digit = true;
    d.mantissa = d.mantissa * 10 + static_cast<unsigned>(c - '0');
    if (d.mantissa != 0 && ++significant > kMaxSignificantDigits) {
      throw UnitError(fmt::format("too many digits in \"{}\"", text));
    }
  };
  while (i < text.size() && is_digit(text[i])) add_digit(text[i++]);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) {
      add_digit(text[i++]);
      --d.exponent;
    }
  }
  if (!any_digit) return std::nullopt;
  // An exponent only when digits follow, so that a unit starting with 'e' could never be eaten.
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    bool negative_exp = false;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) negative_exp = text[j++] == '-';
    if (j < text.size() && is_digit(text[j])) {
      int exp = 0;
      while (j < text.size() && is_digit(text[j])) {
        exp = exp * 10 + (text[j++] - '0');
        if (exp > kMaxExponent) throw UnitError(fmt::format("exponent too large in \"{}\"", text));
      }
      d.exponent += negative_exp ? -exp : exp;
      i = j;
    }
  }
  used = i;
  normalize(d);
  return d;
}

[[noreturn]] void throw_expected(const Dimension& dim, std::string_view text, std::string_view prefix = {}) {
  std::string names;
  for (const Unit& u : dim.units) {
    if (!u.listed) continue;
    if (!names.empty()) names += ", ";
    names += u.name;
  }
  throw UnitError(fmt::format("{}expected {} like \"{}\" (units: {}), got \"{}\"", prefix, dim.what, dim.example,
                              names, text));
}

struct Quantity {
  Decimal number;
  const Unit* unit;
};

Quantity split_quantity(const Dimension& dim, std::string_view raw) {
  const std::string_view text = trim(raw);
  std::size_t used = 0;
  const std::optional<Decimal> number = parse_number_prefix(text, used);
  if (!number) throw_expected(dim, text);
  const std::string_view unit_text = trim(text.substr(used));
  if (unit_text.empty()) throw_expected(dim, text, "a unit is required: ");
  for (const Unit& u : dim.units) {
    if (u.name == unit_text) {
      if (number->negative && number->mantissa != 0) {
        throw UnitError(fmt::format("{} must not be negative, got \"{}\"", dim.what, text));
      }
      return {*number, &u};
    }
  }
  throw_expected(dim, text);
}

bool multiply(U128& v, U128 factor) {
  if (v == 0 || factor == 0) {
    v = 0;
    return true;
  }
  if (v > std::numeric_limits<U128>::max() / factor) return false;
  v *= factor;
  return true;
}

// Exact value of the quantity as a whole number of the dimension's base unit.
std::uint64_t to_whole(const Dimension& dim, std::string_view raw) {
  const Quantity q = split_quantity(dim, raw);
  const std::string_view text = trim(raw);
  U128 v = q.number.mantissa;
  int exp = q.number.exponent + q.unit->exp10;
  const auto too_large = [&] {
    return UnitError(fmt::format("\"{}\" is too large (at most {} {})", text,
                                 std::numeric_limits<std::uint64_t>::max(), dim.base));
  };
  if (!multiply(v, q.unit->multiplier)) throw too_large();
  if (v == 0) return 0;
  for (; exp > 0; --exp) {
    if (!multiply(v, 10)) throw too_large();
  }
  for (; exp < 0; ++exp) {
    if (v % 10 != 0) throw UnitError(fmt::format("\"{}\" is not a whole number of {}", text, dim.base));
    v /= 10;
  }
  if (v > std::numeric_limits<std::uint64_t>::max()) throw too_large();
  return static_cast<std::uint64_t>(v);
}

// Correctly rounded double of mantissa * 10^exp: the decimal text goes to from_chars.
double to_double(U128 mantissa, int exp, std::string_view text) {
  const std::string digits = fmt::format("{}e{}", to_string(mantissa), exp);
  double out = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  if (ec != std::errc{} || ptr != digits.data() + digits.size() || !std::isfinite(out)) {
    throw UnitError(fmt::format("\"{}\" is out of range", text));
  }
  return out;
}

double to_real(const Dimension& dim, std::string_view raw) {
  const Quantity q = split_quantity(dim, raw);
  U128 v = q.number.mantissa;
  if (!multiply(v, q.unit->multiplier)) throw UnitError(fmt::format("\"{}\" is out of range", trim(raw)));
  return to_double(v, q.number.exponent + q.unit->exp10, trim(raw));
}

// A unitless number filling the whole text, or nothing.
std::optional<Decimal> parse_plain(std::string_view text, std::string_view& rest) {
  std::size_t used = 0;
  std::optional<Decimal> d = parse_number_prefix(text, used);
  if (d) rest = trim(text.substr(used));
  return d;
}

// Renders mantissa * 10^exp as plain decimal text ("1.5", "2000", "0.001").
std::string render_decimal(U128 mantissa, int exp) {
  const std::string digits = to_string(mantissa);
  if (mantissa == 0) return digits;
  if (exp >= 0) {
    if (exp <= 20) return digits + std::string(static_cast<std::size_t>(exp), '0');
    return fmt::format("{}e{}", digits, exp);
  }
  const auto frac = static_cast<std::size_t>(-exp);
  if (frac < digits.size()) return digits.substr(0, digits.size() - frac) + "." + digits.substr(digits.size() - frac);
  if (frac - digits.size() <= 20) return "0." + std::string(frac - digits.size(), '0') + digits;
  return fmt::format("{}e{}", digits, exp);
}

Decimal shortest_decimal(double x) {
  const std::string text = fmt::format("{}", x);
  std::size_t used = 0;
  const std::optional<Decimal> d = parse_number_prefix(text, used);
  return d.value_or(Decimal{});
}

struct Prefix {
  std::string_view unit;
  int exp10;
};

// Decimal prefix: the largest with value >= 10^exp10; binary prefixes (if any) when shorter.
std::string format_scaled(double x, std::span<const Prefix> decimal, std::span<const Prefix> binary) {
  if (!std::isfinite(x)) return fmt::format("{} {}", x, decimal.back().unit);
  const Decimal d = shortest_decimal(x);
  const Prefix* chosen = &decimal.back();
  for (const Prefix& p : decimal) {
    if (std::abs(x) >= std::pow(10.0, p.exp10)) {
      chosen = &p;
      break;
    }
  }
  std::string mantissa = render_decimal(d.mantissa, d.exponent - chosen->exp10);
  std::string_view unit = chosen->unit;
  for (const Prefix& p : binary) {
    // Scaling by a power of two is exact, and rounding commutes with it, so the shortest
    // text of x / 2^k times 2^k reads back as x.
    const double y = std::ldexp(x, -p.exp10);
    if (std::abs(y) < 1) continue;
    const Decimal dy = shortest_decimal(y);
    std::string candidate = render_decimal(dy.mantissa, dy.exponent);
    if (candidate.size() < mantissa.size()) {
      mantissa = std::move(candidate);
      unit = p.unit;
    }
    break;
  }
  return fmt::format("{}{} {}", x < 0 ? "-" : "", mantissa, unit);
}

}  // namespace

std::uint64_t parse_bytes(std::string_view text) { return to_whole(kSize, text); }

Tick parse_time_ps(std::string_view text) { return to_whole(kTime, text); }

double parse_frequency_hz(std::string_view text) { return to_real(kFrequency, text); }

double parse_bandwidth_bytes_per_s(std::string_view text) { return to_real(kBandwidth, text); }

double parse_real(std::string_view raw) {
  const std::string_view text = trim(raw);
  std::string_view rest;
  const std::optional<Decimal> d = parse_plain(text, rest);
  if (!d || !rest.empty()) throw UnitError(fmt::format("expected a number, got \"{}\"", text));
  const double v = to_double(d->mantissa, d->exponent, text);
  return d->negative ? -v : v;
}

double parse_fraction(std::string_view raw) {
  const std::string_view text = trim(raw);
  const auto fail = [&] {
    return UnitError(fmt::format("expected a fraction in [0, 1] like \"0.85\" or \"85%\", got \"{}\"", text));
  };
  std::string_view rest;
  std::optional<Decimal> d = parse_plain(text, rest);
  if (!d) throw fail();
  if (rest == "%") {
    d->exponent -= 2;
  } else if (!rest.empty()) {
    throw fail();
  }
  if (d->mantissa == 0) return 0.0;
  if (d->negative) throw fail();
  // Exact comparison with 1: mantissa * 10^exponent <= 1. A mantissa has at most 36 digits,
  // so any 10^k with k > 36 exceeds it.
  const bool at_most_one = d->exponent >= 0 ? (d->mantissa == 1 && d->exponent == 0)
                                            : (-d->exponent > kMaxSignificantDigits || d->mantissa <= pow10(-d->exponent));
  if (!at_most_one) throw fail();
  return to_double(d->mantissa, d->exponent, text);
}

std::int64_t parse_integer(std::string_view raw) {
  const std::string_view text = trim(raw);
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  const bool all_digits = !digits.empty() && digits.find_first_not_of("0123456789", digits.front() == '-' ? 1 : 0) ==
                                                 std::string_view::npos;
  if (!all_digits || digits == "-") throw UnitError(fmt::format("expected an integer, got \"{}\"", text));
  std::int64_t out = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  if (ec != std::errc{} || ptr != digits.data() + digits.size()) {
    throw UnitError(fmt::format("integer out of range, got \"{}\"", text));
  }
  return out;
}

std::uint64_t parse_unsigned(std::string_view raw) {
  const std::string_view text = trim(raw);
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (!digits.empty() && digits.front() == '-' && digits.size() > 1 &&
      digits.find_first_not_of("0123456789", 1) == std::string_view::npos) {
    throw UnitError(fmt::format("expected a non-negative integer, got \"{}\"", text));
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    throw UnitError(fmt::format("expected an integer, got \"{}\"", text));
  }
  std::uint64_t out = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  if (ec != std::errc{} || ptr != digits.data() + digits.size()) {
    throw UnitError(fmt::format("integer out of range, got \"{}\"", text));
  }
  return out;
}

bool parse_bool(std::string_view raw) {
  const std::string_view text = trim(raw);
  for (std::string_view t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"}) {
    if (text == f) return false;
  }
  throw UnitError(fmt::format("expected true or false, got \"{}\"", text));
}

std::string format_bytes(std::uint64_t bytes) {
  // Candidates, first preferred on ties: binary prefixes, decimal prefixes, plain bytes.
  // Each must be exact within 12 fraction digits; the shortest number wins.
  constexpr U128 kFracScale = 1'000'000'000'000;
  constexpr std::array<std::pair<std::string_view, U128>, 9> kCandidates = {{
      {"TiB", kKi * kKi * kKi * kKi},
      {"GiB", kKi * kKi * kKi},
      {"MiB", kKi * kKi},
      {"KiB", kKi},
      {"TB", 1'000'000'000'000},
      {"GB", 1'000'000'000},
      {"MB", 1'000'000},
      {"KB", 1'000},
      {"B", 1},
  }};
  std::string best_number;
  std::string_view best_unit;
  for (const auto& [unit, scale] : kCandidates) {
    if (bytes < scale && scale != 1) continue;
    const U128 scaled = static_cast<U128>(bytes) * kFracScale;
    if (scaled % scale != 0) continue;
    Decimal d{false, scaled / scale, -12};
    normalize(d);
    std::string number = render_decimal(d.mantissa, d.exponent);
    if (best_unit.empty() || number.size() < best_number.size()) {
      best_number = std::move(number);
      best_unit = unit;
    }
  }
  return fmt::format("{} {}", best_number, best_unit);
}

std::string format_time_ps(Tick ps) {
  constexpr std::array<Prefix, 5> kUnits = {{{"s", 12}, {"ms", 9}, {"us", 6}, {"ns", 3}, {"ps", 0}}};
  const Prefix* chosen = &kUnits.back();
  for (const Prefix& p : kUnits) {
    if (static_cast<U128>(ps) >= pow10(p.exp10)) {
      chosen = &p;
      break;
    }
  }
  Decimal d{false, ps, 0};
  normalize(d);
  return fmt::format("{} {}", render_decimal(d.mantissa, d.exponent - chosen->exp10), chosen->unit);
}

std::string format_frequency_hz(double hz) {
  constexpr std::array<Prefix, 5> kUnits = {{{"THz", 12}, {"GHz", 9}, {"MHz", 6}, {"kHz", 3}, {"Hz", 0}}};
  return format_scaled(hz, kUnits, {});
}

std::string format_bandwidth(double bytes_per_s) {
  constexpr std::array<Prefix, 5> kDecimal = {{{"TB/s", 12}, {"GB/s", 9}, {"MB/s", 6}, {"KB/s", 3}, {"B/s", 0}}};
  constexpr std::array<Prefix, 4> kBinary = {{{"TiB/s", 40}, {"GiB/s", 30}, {"MiB/s", 20}, {"KiB/s", 10}}};
  return format_scaled(bytes_per_s, kDecimal, kBinary);
}

std::string format_real(double value) { return fmt::format("{}", value); }

}  // namespace tessera::sim::config
