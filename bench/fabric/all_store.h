#pragma once
// The all-store scenario on an 8-GPU xGMI mesh (MI300X-like), as a FlowNetwork workload.
//
// Every GPU writes `bytes_per_gpu` spread evenly over its peers, cut into chunks; each of its
// workgroups keeps one chunk in flight and takes the next chunk from the GPU's queue when its
// current one completes. A chunk from GPU g, workgroup w (on XCD w mod num_xcds) to peer h
// crosses: g's HBM (read), g's XCD-IOD port, the xGMI link g->h, h's HBM (write).
#include <cstdint>
#include <vector>

#include "sim/core/tick.h"

namespace tessera::bench {

enum class FabricModel { kFluid, kPacket };

struct AllStoreParams {
  FabricModel model = FabricModel::kFluid;
  std::uint32_t packet_bytes = 4096;   // packet model only
  std::uint32_t window_packets = 16;   // packet model only: per chunk flow
  std::uint32_t num_gpus = 8;
  std::uint32_t num_xcds = 8;
  std::uint32_t workgroups_per_gpu = 304;
  std::uint64_t bytes_per_gpu = std::uint64_t{1} << 30;  // in total, over all peers
  std::uint64_t chunk_bytes = 256 * 1024;
  double xgmi_bytes_per_s = 64e9;        // per link, per direction
  double hbm_bytes_per_s = 5.3e12;       // per GPU, reads and writes together
  double xcd_port_bytes_per_s = 2.1504e12;  // 1 KiB/clk at 2.1 GHz, per XCD
  // Placeholder latencies (order of magnitude from public microbenchmarks; not calibrated).
  sim::Tick xgmi_latency_ps = 700'000;
  sim::Tick hbm_latency_ps = 400'000;
  sim::Tick xcd_port_latency_ps = 50'000;
};

struct AllStoreResult {
  std::uint64_t flows = 0;
  std::uint64_t events = 0;
  std::uint64_t solves = 0;   // fluid model: max-min solves
  sim::Tick simulated_ps = 0;
  double wall_s = 0;
  std::vector<double> achieved_bytes_per_s;  // per GPU: bytes written / time its last chunk landed
  double mean_xgmi_utilisation_frac = 0;     // over the whole run, all links
};

AllStoreResult run_all_store(const AllStoreParams& params);

}  // namespace tessera::bench
