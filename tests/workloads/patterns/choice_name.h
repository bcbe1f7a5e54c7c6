#pragma once
// The config name of an enum value from a generator's choice table (e.g. ag_gemm_variant_choices()),
// for test messages.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::workloads::patterns::test {

template <class Enum>
std::string_view choice_name(const std::vector<std::pair<std::string, Enum>>& choices, Enum value) {
  for (const auto& [name, v] : choices) {
    if (v == value) return name;
  }
  return "?";
}

}  // namespace tessera::workloads::patterns::test
