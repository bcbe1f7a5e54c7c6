// A case's parameters: declared with defaults by the case, overridden by --set KEY=VALUE or a suite file, checked
// (unknown keys and malformed values are errors that name the key), and recorded in every result.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tk {

enum class ParamType { integer, real, text };

struct ParamSpec {
  std::string key;
  ParamType type;
  std::string default_value;  // as a user would write it: "256 MiB", "1024", "fp16", "bsp"
  std::string meaning;
};

class Params {
 public:
  // Resolves overrides against the specs: every key of `overrides` must be declared; values must parse.
  // Throws std::invalid_argument naming the key and the value on any problem.
  Params(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& overrides);

  std::int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;
  const std::string& text(const std::string& key) const;

  // Resolved values, integers and reals as numbers, for the result JSON.
  nlohmann::json to_json() const;
  // "k1=v1 k2=v2" of the values that differ from the defaults, for file names and reproduction commands.
  const std::map<std::string, std::string>& overrides() const { return overrides_; }

 private:
  struct Value {
    ParamType type;
    std::int64_t integer = 0;
    double real = 0;
    std::string text;
  };
  const Value& find(const std::string& key, ParamType type) const;

  std::map<std::string, Value> values_;
  std::map<std::string, std::string> overrides_;
};

// "64", "4 KiB", "256 MiB", "1 GiB", "2 KB", "1 MB", "1 GB" (bytes; binary and decimal prefixes are exact).
// Throws std::invalid_argument on anything else or on overflow.
std::int64_t parse_integer_with_unit(const std::string& text);

}  // namespace tk
