#include "sim/app/run/config_differences.h"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tessera::app::run {
namespace {

// Every leaf of a describe document under its --set path, as text (strings without quotes).
void flatten(const nlohmann::json& j, const std::string& path, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) flatten(value, path.empty() ? key : path + "." + key, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], fmt::format("{}[{}]", path, i), out);
    if (j.empty()) out[path] = "[]";
  } else {
    out[path] = j.is_string() ? j.get<std::string>() : j.dump();
  }
}

}  // namespace

std::vector<ConfigDifference> config_differences(const RunSpec& a, const RunSpec& b) {
  std::map<std::string, std::string> in_a;
  std::map<std::string, std::string> in_b;
  flatten(describe_json(a), "", in_a);
  flatten(describe_json(b), "", in_b);
  constexpr const char* kAbsent = "(absent)";
  std::vector<ConfigDifference> out;
  auto ia = in_a.begin();
  auto ib = in_b.begin();
  // A merge of the two sorted key lists.
  while (ia != in_a.end() || ib != in_b.end()) {
    if (ib == in_b.end() || (ia != in_a.end() && ia->first < ib->first)) {
      out.push_back({ia->first, ia->second, kAbsent});
      ++ia;
    } else if (ia == in_a.end() || ib->first < ia->first) {
      out.push_back({ib->first, kAbsent, ib->second});
      ++ib;
    } else {
      if (ia->second != ib->second) out.push_back({ia->first, ia->second, ib->second});
      ++ia;
      ++ib;
    }
  }
  return out;
}

}  // namespace tessera::app::run
