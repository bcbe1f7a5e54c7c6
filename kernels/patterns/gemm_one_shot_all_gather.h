// The all-gather of the BSP variants of the GEMM patterns (ag_gemm bsp: the A shards; gemm_all_scatter bsp: the C
// column slots), as Tessera's one-shot all-gather (workloads/patterns/all_gather.h, `collective: one_shot`):
// every rank stores its slot straight into every peer's output (remote stores; peers in the order rank + 1,
// rank + 2, ...), then releases one flag per (source, channel) on each peer; each channel then waits for its flag
// from every peer, so that when the kernel ends the rank holds every slot and stream order hands it to the next
// kernel.
//
// A slot is a rows x columns block of a row-major matrix; channel c (workgroup c of the grid) moves rows
// [c * rows / channels, (c + 1) * rows / channels) of it, in 16-byte vectors, four loads in flight per thread.
// Flags go 0 -> 1 once per run (the case resets them outside the timed region).
//
// Only thread 0 of a channel spins, after its own stores: a channel waits for the peers' same channel, which
// waits for nothing but its own stores, so the kernel needs its peers' kernels to be running, never more.
#pragma once

#include <cstdint>

#include "patterns/gemm_tile.h"
#include "port/device_atomics.h"
#include "port/hip_port.h"

namespace tk::gemm {

struct AllGatherArgs {
  const __half* source = nullptr;  // this rank's slot, source_ld elements per row
  int source_ld = 0;
  __half* destination[kMaxRanks] = {};  // rank d's copy of this rank's slot, destination_ld elements per row
  int destination_ld = 0;
  int rows = 0;
  int columns = 0;  // a multiple of 8
  int ranks = 1;
  int rank = 0;
  int copy_to_self = 0;  // 1: also copy into destination[rank] (a separate output); 0: in place, nothing to copy
  int* flags[kMaxRanks] = {};  // rank d's flags; flag (source, channel) at flags[d][source * channels + channel]
  // 1: the kernel ends only when the peers' slots have arrived (the collective); 0: it only sends, and the next
  // kernel on the stream waits for the flags instead (GemmArgs::gate).
  int wait_for_peers = 1;
};

// One channel (this workgroup) of the one-shot all-gather. As Tessera's program, each piece of the slot is loaded
// once and stored from registers into this rank's own output (when it has one), then into the peers' outputs in
// the order rank + 1, rank + 2, ...
__device__ inline void one_shot_all_gather_channel(const AllGatherArgs& g) {
  constexpr int kInFlight = 4;
  const int channel = static_cast<int>(blockIdx.x);
  const int channels = static_cast<int>(gridDim.x);
  const int first_row = static_cast<int>(static_cast<std::int64_t>(channel) * g.rows / channels);
  const int end_row = static_cast<int>(static_cast<std::int64_t>(channel + 1) * g.rows / channels);
  const int vectors_per_row = g.columns / 8;
  const int count = (end_row - first_row) * vectors_per_row;  // the host keeps a slot under 2^31 vectors
  const int threads = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < count; base += kInFlight * threads) {
    uint4 values[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const int index = base + u * threads;
      if (index < count) {
        const std::size_t row = static_cast<std::size_t>(first_row + index / vectors_per_row);
        values[u] = *reinterpret_cast<const uint4*>(g.source + row * g.source_ld + (index % vectors_per_row) * 8);
      }
    }
    for (int i = g.copy_to_self ? 0 : 1; i < g.ranks; ++i) {
      int destination = g.rank + i;
      if (destination >= g.ranks) destination -= g.ranks;
      __half* to = g.destination[destination];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int index = base + u * threads;
        if (index < count) {
          const std::size_t row = static_cast<std::size_t>(first_row + index / vectors_per_row);
          *reinterpret_cast<uint4*>(to + row * g.destination_ld + (index % vectors_per_row) * 8) = values[u];
        }
      }
    }
  }
  // Every thread's remote stores are visible system-wide before thread 0 releases the peers' flags.
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int peer = 0; peer < g.ranks; ++peer) {
    if (peer != g.rank) flag_release_system(g.flags[peer] + g.rank * channels + channel, 1);
  }
  if (!g.wait_for_peers) return;
  for (int peer = 0; peer < g.ranks; ++peer) {
    if (peer != g.rank) flag_wait_at_least(g.flags[g.rank] + peer * channels + channel, 1);
  }
}

}  // namespace tk::gemm
