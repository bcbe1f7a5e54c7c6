// The order in which a persistent GEMM visits its output tiles, exactly as Tessera's generators do
// (workloads/patterns/gemm_tiling.h): the grouped order of Triton (GROUP_SIZE_M row-blocks share their column
// sweep), the persistent loop `for tile in range(pid, tiles, NUM_WGS)`, and the chiplet (XCD) remap of workgroup
// ids. Host and device code share these functions, so a host check can name the tile a workgroup computed.
#pragma once

#include <stdexcept>
#include <string>

#include "port/hip_port.h"

namespace tk::gemm {

// Tessera's `xcd_remap` choices.
enum class Remap : int {
  none = 0,             // workgroup i is pid i
  chiplet_swizzle = 1,  // pid = (i % D) * (NUM_WGS / D) + i / D: consecutive tiles on one die (D dies)
};

struct TileCoord {
  int m = 0;  // row-block index (pid_m)
  int n = 0;  // column-block index (pid_n)
};

// Triton's grouped order (gemm_tiling.h tile_coord):
//   group = tile / (group_m * tiles_n); first_m = group * group_m; size_m = min(tiles_m - first_m, group_m);
//   pid_m = first_m + (tile % (group_m * tiles_n)) % size_m; pid_n = (tile % (group_m * tiles_n)) / size_m.
__host__ __device__ inline TileCoord grouped_tile(int tile, int tiles_m, int tiles_n, int group_m) {
  const int in_group = group_m * tiles_n;
  const int first_m = tile / in_group * group_m;
  const int size_m = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  const int within = tile % in_group;
  return {first_m + within % size_m, within / size_m};
}

// The workgroup id remap of gemm_tiling.h remap_workgroup: a permutation of [0, num_wgs) when num_wgs is a
// multiple of dies (checked on the host by remap_problem).
__host__ __device__ inline int remap_workgroup(int wg, int num_wgs, int dies, Remap remap) {
  if (remap == Remap::none || dies <= 1) return wg;
  return (wg % dies) * (num_wgs / dies) + wg / dies;
}

// Host side: the parameter text, and why a grid cannot be remapped (empty when it can).
inline Remap parse_remap(const std::string& key, const std::string& text) {
  if (text == "none") return Remap::none;
  if (text == "chiplet_swizzle") return Remap::chiplet_swizzle;
  throw std::invalid_argument(key + ": expected none or chiplet_swizzle, got \"" + text + "\"");
}

inline const char* remap_name(Remap remap) { return remap == Remap::none ? "none" : "chiplet_swizzle"; }

inline std::string remap_problem(int num_wgs, int dies, Remap remap) {
  if (remap == Remap::none || dies <= 1 || num_wgs % dies == 0) return {};
  return "chiplet_swizzle needs the grid (" + std::to_string(num_wgs) + " workgroups) to be a multiple of the dies (" +
         std::to_string(dies) + "); otherwise the remap is not a permutation and some tiles are never computed";
}

// The die count Tessera's system model of this platform's GPU has, which its remap uses: the H100/H200 systems
// (configs/systems/h100-1.yaml) model the two L2 partitions as 2 dies; an MI300X has 8 XCDs. On NVIDIA nothing
// dispatches workgroups round-robin over L2 partitions, so there the remap changes only the tile order, which is
// what makes the measurement comparable with Tessera's prediction of the same order.
inline int default_remap_dies() {
#if defined(TK_PLATFORM_AMD)
  return 8;
#else
  return 2;
#endif
}

}  // namespace tk::gemm
