#pragma once
// How many workgroups of a kernel one CU (SM) holds at once: its slots, and what the kernel's
// workgroups take of the CU's registers, shared memory (LDS) and wave slots. A register-hungry
// kernel (255 registers per lane x 256 lanes fills an SM's 65,536) runs one workgroup per CU
// whatever the slots say, so its latencies are hidden by its own waves only.
#include <cstdint>
#include <string>

#include "models/system/system_spec.h"

namespace tessera::models::compute {

// What one workgroup of a kernel takes of its CU; 0: not given (no limit from it).
struct Footprint {
  std::uint32_t waves = 0;              // waves (warps) per workgroup
  std::uint32_t registers = 0;          // registers per lane
  std::uint64_t lds_bytes = 0;          // shared memory (LDS) per workgroup

  bool any() const { return waves > 0 || registers > 0 || lds_bytes > 0; }
};

// Workgroups of a kernel with `footprint` that one CU holds: the least of workgroup_slots_per_cu
// and, where both the CU's capacity (spec.occupancy) and the footprint give them, its registers
// / (registers x waves x wave size), its shared memory / lds_bytes and its waves / waves. 0 when
// one workgroup does not fit; `limit` then names the resource.
struct Occupancy {
  std::uint32_t workgroups = 0;
  std::string limit;  // "slots", "registers", "lds", "waves"
};
Occupancy occupancy_of(const ComputeSpec& spec, const Footprint& footprint);

}  // namespace tessera::models::compute
