#pragma once
// Codecs: how one kind of schema field turns config text into a typed value and back.
// Each has: expected() (for "expected X, got Y"), kind() and unit() (for the schema dump),
// parse() (throws UnitError), format() (round-trippable text), to_json(), choices().
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join
#include <nlohmann/json.hpp>

#include "sim/config/suggest.h"
#include "sim/config/units.h"

namespace tessera::sim::config::codec {

struct Base {
  std::string_view unit() const { return {}; }
  std::vector<std::string> choices() const { return {}; }
};

template <class T>
T checked_integer_cast(auto value, std::string_view text) {
  if (!std::in_range<T>(value)) {
    throw UnitError(fmt::format("\"{}\" is out of range (at most {})", text, std::numeric_limits<T>::max()));
  }
  return static_cast<T>(value);
}

template <class T>
struct Count : Base {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "count fields are integers");
  std::string_view expected() const { return "an integer"; }
  std::string_view kind() const { return "count"; }
  T parse(std::string_view text) const {
    if constexpr (std::is_signed_v<T>) {
      return checked_integer_cast<T>(parse_integer(text), text);
    } else {
      return checked_integer_cast<T>(parse_unsigned(text), text);
    }
  }
  std::string format(T v) const { return std::to_string(v); }
  nlohmann::json to_json(T v) const { return v; }
};

template <class T>
struct Bytes : Base {
  static_assert(std::is_unsigned_v<T> && !std::is_same_v<T, bool>, "byte fields are unsigned integers");
  std::string_view expected() const { return "a size"; }
  std::string_view kind() const { return "bytes"; }
  std::string_view unit() const { return "B"; }
  T parse(std::string_view text) const { return checked_integer_cast<T>(parse_bytes(text), text); }
  std::string format(T v) const { return format_bytes(v); }
  nlohmann::json to_json(T v) const { return format(v); }
};

template <class T>
struct Time : Base {
  static_assert(std::is_unsigned_v<T> && !std::is_same_v<T, bool>, "time fields are unsigned picoseconds");
  std::string_view expected() const { return "a time"; }
  std::string_view kind() const { return "time"; }
  std::string_view unit() const { return "ps"; }
  T parse(std::string_view text) const { return checked_integer_cast<T>(parse_time_ps(text), text); }
  std::string format(T v) const { return format_time_ps(v); }
  nlohmann::json to_json(T v) const { return format(v); }
};

struct Real : Base {
  std::string_view expected() const { return "a number"; }
  std::string_view kind() const { return "real"; }
  double parse(std::string_view text) const { return parse_real(text); }
  std::string format(double v) const { return format_real(v); }
  nlohmann::json to_json(double v) const { return v; }
};

struct Fraction : Base {
  std::string_view expected() const { return "a fraction in [0, 1]"; }
  std::string_view kind() const { return "fraction"; }
  double parse(std::string_view text) const { return parse_fraction(text); }
  std::string format(double v) const { return format_real(v); }
  nlohmann::json to_json(double v) const { return v; }
};

struct Frequency : Base {
  std::string_view expected() const { return "a frequency"; }
  std::string_view kind() const { return "frequency"; }
  std::string_view unit() const { return "Hz"; }
  double parse(std::string_view text) const { return parse_frequency_hz(text); }
  std::string format(double v) const { return format_frequency_hz(v); }
  nlohmann::json to_json(double v) const { return format(v); }
};

struct Bandwidth : Base {
  std::string_view expected() const { return "a bandwidth"; }
  std::string_view kind() const { return "bandwidth"; }
  std::string_view unit() const { return "B/s"; }
  double parse(std::string_view text) const { return parse_bandwidth_bytes_per_s(text); }
  std::string format(double v) const { return format_bandwidth(v); }
  nlohmann::json to_json(double v) const { return format(v); }
};

struct Boolean : Base {
  std::string_view expected() const { return "true or false"; }
  std::string_view kind() const { return "boolean"; }
  bool parse(std::string_view text) const { return parse_bool(text); }
  std::string format(bool v) const { return v ? "true" : "false"; }
  nlohmann::json to_json(bool v) const { return v; }
};

struct String : Base {
  std::string_view expected() const { return "a string"; }
  std::string_view kind() const { return "string"; }
  std::string parse(std::string_view text) const { return std::string(text); }
  std::string format(const std::string& v) const { return v; }
  nlohmann::json to_json(const std::string& v) const { return v; }
};

// One of a fixed set of names, mapped to values (strings or an enum).
template <class T>
struct Choice : Base {
  std::vector<std::pair<std::string, T>> table;

  std::string_view expected() const { return "a name"; }
  std::string_view kind() const { return "choice"; }
  std::vector<std::string> choices() const {
    std::vector<std::string> names;
    for (const auto& entry : table) names.push_back(entry.first);
    return names;
  }
  T parse(std::string_view text) const {
    for (const auto& [name, value] : table) {
      if (name == text) return value;
    }
    const std::vector<std::string> names = choices();
    std::string message = fmt::format("expected one of {}, got \"{}\"", fmt::join(names, ", "), text);
    if (auto guess = nearest(text, names)) message += fmt::format("; did you mean '{}'?", *guess);
    throw UnitError(message);
  }
  std::string format(const T& v) const {
    for (const auto& [name, value] : table) {
      if (value == v) return name;
    }
    return "?";  // a value outside the table: set in code, never read from a file
  }
  nlohmann::json to_json(const T& v) const { return format(v); }
};

}  // namespace tessera::sim::config::codec
