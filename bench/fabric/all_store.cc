#include "bench/fabric/all_store.h"

#include <chrono>
#include <stdexcept>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "models/fabric/flow_network.h"
#include "models/fabric/packet_network.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"

namespace tessera::bench {
namespace {

namespace fabric = tessera::models::fabric;

// Generic over the fabric model: FlowNetwork and PacketNetwork share the interface used here.
template <class Net>
class AllStore {
 public:
  using RouteId = decltype(std::declval<Net&>().add_route(std::span<const fabric::ResourceId>{}));
  AllStore(const AllStoreParams& p, sim::Engine& engine, Net& net) : p_(p), engine_(engine), net_(net) {
    const std::uint32_t n = p.num_gpus;
    for (std::uint32_t g = 0; g < n; ++g) {
      hbm_.push_back(net.add_resource({fmt::format("gpu[{}].hbm", g), p.hbm_bytes_per_s, p.hbm_latency_ps}));
      for (std::uint32_t x = 0; x < p.num_xcds; ++x) {
        port_.push_back(net.add_resource(
            {fmt::format("gpu[{}].xcd_port[{}]", g, x), p.xcd_port_bytes_per_s, p.xcd_port_latency_ps}));
      }
      for (std::uint32_t h = 0; h < n; ++h) {
        // The diagonal is never used; keeping it makes the index arithmetic plain.
        xgmi_.push_back(net.add_resource({fmt::format("gpu[{}].xgmi_to[{}]", g, h), p.xgmi_bytes_per_s, p.xgmi_latency_ps}));
      }
    }
    // Routes: one per (source GPU, XCD, peer), all interned up front so the hot path does no lookup.
    for (std::uint32_t g = 0; g < n; ++g) {
      for (std::uint32_t x = 0; x < p.num_xcds; ++x) {
        for (std::uint32_t k = 0; k + 1 < n; ++k) {
          const std::uint32_t h = peer(g, k);
          const std::vector<fabric::ResourceId> path{hbm_[g], port_[g * p.num_xcds + x], xgmi_[g * n + h], hbm_[h]};
          routes_.push_back(net.add_route(path));
        }
      }
    }
    num_chunks_ = (p.bytes_per_gpu + p.chunk_bytes - 1) / p.chunk_bytes;
    next_chunk_.assign(n, 0);
    last_landed_ps_.assign(n, 0);
  }

  void start() {
    for (std::uint32_t g = 0; g < p_.num_gpus; ++g) {
      for (std::uint32_t w = 0; w < p_.workgroups_per_gpu; ++w) issue(g, w);
    }
  }

  void on_chunk_done(const sim::Payload& payload) {
    const auto g = static_cast<std::uint32_t>(payload.a / p_.workgroups_per_gpu);
    const auto w = static_cast<std::uint32_t>(payload.a % p_.workgroups_per_gpu);
    last_landed_ps_[g] = engine_.now();
    issue(g, w);
  }

  const std::vector<sim::Tick>& last_landed_ps() const { return last_landed_ps_; }
  const std::vector<fabric::ResourceId>& xgmi() const { return xgmi_; }
  std::uint32_t peer(std::uint32_t g, std::uint32_t k) const { return (g + 1 + k) % p_.num_gpus; }

 private:
  // Chunk c of GPU g goes to peer (c mod peers): consecutive chunks spread over all links.
  void issue(std::uint32_t g, std::uint32_t w) {
    if (next_chunk_[g] >= num_chunks_) return;
    const std::uint64_t c = next_chunk_[g]++;
    const std::uint64_t bytes = std::min(p_.chunk_bytes, p_.bytes_per_gpu - c * p_.chunk_bytes);
    const std::uint32_t peers = p_.num_gpus - 1;
    const std::uint32_t x = w % p_.num_xcds;
    const auto k = static_cast<std::uint32_t>(c % peers);
    const RouteId route = routes_[(g * p_.num_xcds + x) * peers + k];
    net_.start_flow(route, bytes, sim::bind<&AllStore::on_chunk_done>(this),
                    sim::Payload{std::uint64_t{g} * p_.workgroups_per_gpu + w, 0});
  }

  const AllStoreParams& p_;
  sim::Engine& engine_;
  Net& net_;
  std::vector<fabric::ResourceId> hbm_, port_, xgmi_;
  std::vector<RouteId> routes_;
  std::uint64_t num_chunks_ = 0;
  std::vector<std::uint64_t> next_chunk_;
  std::vector<sim::Tick> last_landed_ps_;
};

template <class Net>
AllStoreResult run(const AllStoreParams& p, auto make_net) {
  const auto t0 = std::chrono::steady_clock::now();
  sim::Engine engine;
  sim::stats::StatRegistry registry;
  Net net = make_net(sim::Context{engine, registry});
  AllStore<Net> model(p, engine, net);
  model.start();
  const sim::RunResult run = engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  AllStoreResult r;
  r.flows = net.flows_completed();
  r.events = run.events;
  if constexpr (requires { net.solves(); }) r.solves = net.solves();
  r.simulated_ps = run.final_time_ps;
  r.wall_s = wall;
  for (sim::Tick t : model.last_landed_ps()) {
    r.achieved_bytes_per_s.push_back(t ? static_cast<double>(p.bytes_per_gpu) * 1e12 / static_cast<double>(t) : 0.0);
  }
  double busy = 0;
  std::uint32_t links = 0;
  for (std::uint32_t g = 0; g < p.num_gpus; ++g) {
    for (std::uint32_t k = 0; k + 1 < p.num_gpus; ++k) {
      busy += net.busy_ps(model.xgmi()[g * p.num_gpus + model.peer(g, k)], r.simulated_ps);
      ++links;
    }
  }
  r.mean_xgmi_utilisation_frac = r.simulated_ps ? busy / (static_cast<double>(links) * static_cast<double>(r.simulated_ps)) : 0;
  return r;
}

}  // namespace

AllStoreResult run_all_store(const AllStoreParams& p) {
  if (p.num_gpus < 2 || p.num_xcds == 0 || p.workgroups_per_gpu == 0 || p.chunk_bytes == 0 || p.bytes_per_gpu == 0) {
    throw std::invalid_argument("all_store needs >= 2 GPUs and positive XCDs, workgroups, chunk and bytes");
  }
  if (p.model == FabricModel::kPacket) {
    return run<fabric::PacketNetwork>(p, [&](sim::Context c) {
      return fabric::PacketNetwork(c, "node", fabric::PacketNetworkParams{p.packet_bytes, p.window_packets});
    });
  }
  return run<fabric::FlowNetwork>(p, [](sim::Context c) { return fabric::FlowNetwork(c, "node"); });
}

}  // namespace tessera::bench
