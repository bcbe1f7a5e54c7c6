// Host side of the GEMM cases: which tile shape the block_m / block_n / block_k parameters name, the size rules
// (multiples of the tile; everything else is rejected with a message naming the key), the GPU's compute units,
// and the co-residency rule of kernels that spin on flags.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "harness/context.h"
#include "harness/hip_check.h"
#include "patterns/gemm_tile.h"

namespace tk::gemm {

enum class ShapeId { tile_128x128x32, tile_128x64x32, tile_64x64x32 };

inline constexpr const char* kSupportedShapes = "128x128x32, 128x64x32 or 64x64x32";

inline ShapeId parse_shape(std::int64_t block_m, std::int64_t block_n, std::int64_t block_k) {
  if (block_k != 32) throw std::invalid_argument("block_k: the kernels use 32; tiles are " + std::string(kSupportedShapes));
  if (block_m == 128 && block_n == 128) return ShapeId::tile_128x128x32;
  if (block_m == 128 && block_n == 64) return ShapeId::tile_128x64x32;
  if (block_m == 64 && block_n == 64) return ShapeId::tile_64x64x32;
  throw std::invalid_argument("block_m: " + std::to_string(block_m) + " x " + std::to_string(block_n) +
                              " is not an instantiated tile; tiles are " + kSupportedShapes);
}

// Calls f(Shape{}) with the TileShape type of `id` (a generic lambda launches the kernel of that shape).
template <class F>
void with_shape(ShapeId id, F&& f) {
  switch (id) {
    case ShapeId::tile_128x128x32: f(Tile128x128x32{}); return;
    case ShapeId::tile_128x64x32: f(Tile128x64x32{}); return;
    case ShapeId::tile_64x64x32: f(Tile64x64x32{}); return;
  }
}

inline int threads_of(ShapeId id) {
  int threads = 0;
  with_shape(id, [&](auto shape) { threads = decltype(shape)::kThreads; });
  return threads;
}

// `value` must be a positive multiple of `multiple` (and small enough for 32-bit tile and row indices).
inline void require_multiple(const std::string& key, std::int64_t value, std::int64_t multiple,
                             const std::string& of_what) {
  if (value <= 0 || value % multiple != 0) {
    throw std::invalid_argument(key + ": " + std::to_string(value) + " must be a positive multiple of " + of_what +
                                " (" + std::to_string(multiple) + "); the kernels have no masked edge tiles");
  }
  if (value > (std::int64_t{1} << 20)) throw std::invalid_argument(key + ": at most 1048576");
}

// A slot the one-shot all-gather moves (rows x columns halves) must stay under 2^31 16-byte vectors (int indices).
inline void require_gather_slot(const std::string& key, std::int64_t rows, std::int64_t columns) {
  if (rows * columns / 8 >= (std::int64_t{1} << 31)) {
    throw std::invalid_argument(key + ": a rank's slot of " + std::to_string(rows) + " x " + std::to_string(columns) +
                                " halves is too large for the all-gather kernel");
  }
}

inline void require_range(const std::string& key, std::int64_t value, std::int64_t low, std::int64_t high) {
  if (value < low || value > high) {
    throw std::invalid_argument(key + ": " + std::to_string(value) + " is outside " + std::to_string(low) + " .. " +
                                std::to_string(high));
  }
}

inline int compute_units(const Context& context, int rank) {
  context.use(rank);
  int count = 0;
  HIP_CHECK(hipDeviceGetAttribute(&count, hipDeviceAttributeMultiprocessorCount, context.device(rank)));
  return count;
}

// How many workgroups of `kernel` (threads per workgroup, static shared memory only) the GPU of `rank` holds at
// once: the bound on a grid whose workgroups wait for each other.
template <class Kernel>
int resident_workgroups(const Context& context, int rank, Kernel kernel, int threads) {
  context.use(rank);
  int per_cu = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, threads, 0));
  return per_cu * compute_units(context, rank);
}

// Ranks of this context placed on the same GPU as `rank` (itself included): 1 normally, the number of ranks when a
// functional check runs them all on one GPU (--devices 0,0).
inline int ranks_sharing_gpu(const Context& context, int rank) {
  int sharing = 0;
  for (int other = 0; other < context.ranks(); ++other) sharing += context.device(other) == context.device(rank);
  return sharing;
}

// A kernel that spins until a kernel launched LATER on the same GPU (another rank's, on its own stream) has made
// progress finishes only if its spinning workgroups leave that kernel room: `spinning` workgroups of a kernel with
// `resident` slots must leave at least one free. `key` names the parameter that shrinks `spinning`.
inline void require_room_beside_spinning(const std::string& key, int spinning, int resident, const std::string& what) {
  if (spinning >= resident) {
    throw std::runtime_error(key + ": " + what + ": " + std::to_string(spinning) +
                             " workgroups may spin at once, but the GPU holds only " + std::to_string(resident) +
                             " such workgroups, so the kernel they wait for could never run (deadlock); lower " + key);
  }
}

}  // namespace tk::gemm
