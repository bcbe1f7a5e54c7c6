#pragma once
// Which die a workgroup goes to, and the workgroups of one die in dispatch order.
//
// Round robin in chunks (MI300X SPX mode, chunk 1): workgroup i goes to die position
// (i / chunk) mod D, where D is the number of dies the kernel's partition has CUs on and
// position p is the p-th of those dies. The workgroups of position p are, in order,
// i = (r * D + p) * chunk + j for r = 0, 1, ... and j = 0 .. chunk-1, while i < N.
#include <cstdint>

namespace tessera::models::compute {

inline std::uint32_t die_position_of(std::uint32_t workgroup, std::uint32_t chunk, std::uint32_t num_dies) {
  return (workgroup / chunk) % num_dies;
}

// The k-th workgroup (k from 0) sent to die position `position`; >= N when there is none.
inline std::uint64_t kth_workgroup_of_die(std::uint64_t k, std::uint32_t position, std::uint32_t chunk,
                                          std::uint32_t num_dies) {
  return ((k / chunk) * num_dies + position) * chunk + k % chunk;
}

}  // namespace tessera::models::compute
