#pragma once
// Figures of Tessera's model that follow from a system spec and that the direct (measured-only)
// fits need: what a kernel costs before its first byte moves, how much L2 there is, how many
// links carry a transfer to one peer, and a flag access's link round trip.
#include <cstdint>

#include "models/system/system_spec.h"

namespace tessera::app::calibration {

// Launch latency, the dispatch of the die that gets the most of `workgroups` (dies dispatch in
// parallel, round robin), and teardown: in ps.
double kernel_overhead_ps(const models::SystemSpec& system, std::uint64_t workgroups);

// The workgroups a microbenchmark runs when its `workgroups` is 0: one per CU for streams.
std::uint64_t default_stream_workgroups(const models::SystemSpec& system);

// Every L2 instance of one GPU together, in bytes.
double total_l2_bytes(const models::SystemSpec& system);

// Links that carry a transfer from one GPU to one peer (full mesh: the peer's share; direct and
// switch: every link of the GPU); 0 without GPU links.
double links_to_one_peer(const models::SystemSpec& system);
// Links that carry the traffic of one GPU to all its peers at once (all_load, all_store).
double links_of_one_gpu(const models::SystemSpec& system);

// The unloaded link round trip, in ps, between die 0 of `gpu` and the memory side of `home`, as
// a flag access pays it (0 when gpu == home).
double link_round_trip_ps(const models::SystemSpec& system, std::uint32_t gpu, std::uint32_t home);

}  // namespace tessera::app::calibration
