#include "models/topology/resource_class.h"

#include <array>

namespace tessera::models::topology {
namespace {

// Indexed by the enum's value; the names are those reports print and YAML may use.
constexpr std::array<std::string_view, kNumResourceClasses> kNames = {
    "die_link", "iod_link", "hbm", "mall", "l2", "xgmi", "nvlink", "pcie", "switch", "nic", "network",
};

}  // namespace

std::string_view to_string(ResourceClass c) { return kNames.at(static_cast<std::size_t>(c)); }

std::optional<ResourceClass> parse_resource_class(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return static_cast<ResourceClass>(i);
  }
  return std::nullopt;
}

}  // namespace tessera::models::topology
