#include "harness/params.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tk {

namespace {

std::string trim(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

}  // namespace

std::int64_t parse_integer_with_unit(const std::string& raw) {
  const std::string text = trim(raw);
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 18) throw std::invalid_argument("expected a non-negative integer, got \"" + raw + "\"");
  const std::int64_t number = std::stoll(text.substr(0, digits));
  const std::string unit = trim(text.substr(digits));
  static const std::map<std::string, std::int64_t> scale{
      {"", 1},           {"B", 1},
      {"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30},
      {"KB", 1000},       {"MB", 1000000},    {"GB", 1000000000}};
  const auto found = scale.find(unit);
  if (found == scale.end()) {
    throw std::invalid_argument("unknown unit \"" + unit + "\" in \"" + raw + "\" (use B, KiB, MiB, GiB, KB, MB, GB)");
  }
  if (number > std::numeric_limits<std::int64_t>::max() / found->second) {
    throw std::invalid_argument("\"" + raw + "\" is too large");
  }
  return number * found->second;
}

Params::Params(const std::vector<ParamSpec>& specs, const std::map<std::string, std::string>& overrides)
    : overrides_(overrides) {
  std::map<std::string, const ParamSpec*> by_key;
  for (const ParamSpec& spec : specs) by_key[spec.key] = &spec;
  for (const auto& [key, text] : overrides) {
    if (!by_key.count(key)) {
      std::string known;
      for (const ParamSpec& spec : specs) known += (known.empty() ? "" : ", ") + spec.key;
      throw std::invalid_argument("unknown parameter '" + key + "' (this case takes: " + known + ")");
    }
  }
  for (const ParamSpec& spec : specs) {
    const auto override_it = overrides.find(spec.key);
    const std::string& text = override_it != overrides.end() ? override_it->second : spec.default_value;
    Value value;
    value.type = spec.type;
    try {
      switch (spec.type) {
        case ParamType::integer: value.integer = parse_integer_with_unit(text); break;
        case ParamType::real: {
          std::size_t used = 0;
          value.real = std::stod(text, &used);
          if (trim(text.substr(used)) != "" || !std::isfinite(value.real)) throw std::invalid_argument("");
          break;
        }
        case ParamType::text: value.text = trim(text); break;
      }
    } catch (const std::exception& error) {
      throw std::invalid_argument("parameter '" + spec.key + "': cannot read \"" + text + "\"" +
                                  (std::string(error.what()).empty() ? "" : ": " + std::string(error.what())));
    }
    values_[spec.key] = value;
  }
}

const Params::Value& Params::find(const std::string& key, ParamType type) const {
  const auto found = values_.find(key);
  if (found == values_.end() || found->second.type != type) {
    throw std::logic_error("case reads undeclared parameter '" + key + "'");
  }
  return found->second;
}

std::int64_t Params::integer(const std::string& key) const { return find(key, ParamType::integer).integer; }
double Params::real(const std::string& key) const { return find(key, ParamType::real).real; }
const std::string& Params::text(const std::string& key) const { return find(key, ParamType::text).text; }

nlohmann::json Params::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : values_) {
    switch (value.type) {
      case ParamType::integer: out[key] = value.integer; break;
      case ParamType::real: out[key] = value.real; break;
      case ParamType::text: out[key] = value.text; break;
    }
  }
  return out;
}

}  // namespace tk
