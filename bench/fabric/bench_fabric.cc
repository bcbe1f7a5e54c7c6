// Speed and sanity of the fluid fabric model on an 8-GPU all-store (see all_store.h).
//
//   bench_fabric [--bytes-per-gpu B] [--chunk B] [--workgroups N] [--repeats R]
//                [--packet [--packet-bytes B] [--window N]]   (store-and-forward reference model)
// Prints one JSON object: flows, events, simulated time, wall time (best of R), achieved
// bandwidth per GPU.
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/fabric/all_store.h"

int main(int argc, char** argv) {
  tessera::bench::AllStoreParams p;
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> unsigned long long {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
      return std::strtoull(argv[++i], nullptr, 0);
    };
    try {
      if (std::strcmp(argv[i], "--bytes-per-gpu") == 0) p.bytes_per_gpu = value();
      else if (std::strcmp(argv[i], "--chunk") == 0) p.chunk_bytes = value();
      else if (std::strcmp(argv[i], "--workgroups") == 0) p.workgroups_per_gpu = static_cast<std::uint32_t>(value());
      else if (std::strcmp(argv[i], "--packet") == 0) p.model = tessera::bench::FabricModel::kPacket;
      else if (std::strcmp(argv[i], "--packet-bytes") == 0) p.packet_bytes = static_cast<std::uint32_t>(value());
      else if (std::strcmp(argv[i], "--window") == 0) p.window_packets = static_cast<std::uint32_t>(value());
      else if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, static_cast<int>(value()));
      else throw std::invalid_argument(std::string("unknown option ") + argv[i]);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}\nusage: bench_fabric [--bytes-per-gpu B] [--chunk B] [--workgroups N] [--repeats R]\n"
                 "       [--packet [--packet-bytes B] [--window N]]\n",
                 e.what());
      return 2;
    }
  }
  tessera::bench::AllStoreResult best;
  for (int i = 0; i < repeats; ++i) {
    auto r = tessera::bench::run_all_store(p);
    if (i == 0 || r.wall_s < best.wall_s) best = std::move(r);
  }
  double sum = 0;
  for (double bw : best.achieved_bytes_per_s) sum += bw;
  const nlohmann::json out{
      {"scenario", "all_store"},
      {"model", p.model == tessera::bench::FabricModel::kPacket ? "packet" : "fluid"},
      {"gpus", p.num_gpus},
      {"bytes_per_gpu", p.bytes_per_gpu},
      {"chunk_bytes", p.chunk_bytes},
      {"workgroups_per_gpu", p.workgroups_per_gpu},
      {"flows", best.flows},
      {"events", best.events},
      {"solves", best.solves},
      {"simulated_time_ps", best.simulated_ps},
      {"wall_s", best.wall_s},
      {"achieved_bytes_per_s_per_gpu", best.achieved_bytes_per_s},
      {"mean_achieved_bytes_per_s_per_gpu", sum / static_cast<double>(best.achieved_bytes_per_s.size())},
      {"peak_bytes_per_s_per_gpu", p.xgmi_bytes_per_s * (p.num_gpus - 1)},
      {"mean_xgmi_utilisation_frac", best.mean_xgmi_utilisation_frac},
  };
  fmt::print("{}\n", out.dump(2));
  return 0;
}
