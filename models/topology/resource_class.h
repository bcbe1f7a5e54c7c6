#pragma once
// What kind of hardware a topology resource stands for, so that reports can sum bytes and
// busy time per link class (all xGMI links, all HBM, ...) without parsing resource names.
#include <optional>
#include <string_view>

namespace tessera::models::topology {

enum class ResourceClass {
  kDieLink,  // compute die (XCD / L2 partition) <-> its IOD, one direction
  kIodLink,  // IOD -> IOD inside one GPU package
  kHbm,      // a GPU's HBM bandwidth (node resource of its memory vertex)
  kMall,     // a GPU's memory-side last-level cache (node resource of its memory vertex)
  kL2,       // a die's L2 bandwidth (node resource of the die vertex)
  kXgmi,     // AMD GPU <-> GPU links, one direction, a bundle
  kNvlink,   // NVIDIA GPU <-> GPU or GPU <-> switch links, one direction, a bundle
  kPcie,     // GPU <-> host or GPU <-> its NIC, one direction
  kSwitch,   // a switch's crossbar (node resource of the switch vertex)
  kNic,      // a NIC's port <-> its leaf switch, one direction
  kNetwork,  // a leaf's uplinks to the spine, one direction, a bundle
};

inline constexpr int kNumResourceClasses = 11;

std::string_view to_string(ResourceClass c);
std::optional<ResourceClass> parse_resource_class(std::string_view text);

}  // namespace tessera::models::topology
