#include "models/compute/occupancy.h"

#include <algorithm>

namespace tessera::models::compute {

Occupancy occupancy_of(const ComputeSpec& spec, const Footprint& f) {
  Occupancy o{spec.workgroup_slots_per_cu, "slots"};
  const CuCapacity& cu = spec.occupancy;
  const auto bound = [&o](std::uint64_t fits, const char* limit) {
    if (fits < o.workgroups) o = {static_cast<std::uint32_t>(fits), limit};
  };
  if (cu.registers > 0 && f.registers > 0 && f.waves > 0 && cu.wave_size > 0) {
    bound(cu.registers / (std::uint64_t{f.registers} * f.waves * cu.wave_size), "registers");
  }
  if (cu.lds_bytes > 0 && f.lds_bytes > 0) bound(cu.lds_bytes / f.lds_bytes, "lds");
  if (cu.waves > 0 && f.waves > 0) bound(cu.waves / f.waves, "waves");
  return o;
}

}  // namespace tessera::models::compute
