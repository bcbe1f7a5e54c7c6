#pragma once
// A chunk-level (store-and-forward) alternative to FlowNetwork with the same interface, kept
// as a reference to judge the fluid model against: every packet is serialised on every hop in
// FIFO order, then crosses the hop's latency; a flow keeps at most `window_packets` packets
// in the network (an end-to-end credit window) and injects the next one when one is delivered.
//
// Fairness is not imposed but emerges from FIFO queues shared by window-limited flows, as in
// real hardware with credits. Cost: one engine event per packet per hop, so it is
// (bytes / packet_bytes) x hops events: orders of magnitude more than the fluid model.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/fabric/resource.h"
#include "sim/component/component.h"

namespace tessera::models::fabric {

struct PacketNetworkParams {
  std::uint32_t packet_bytes = 4096;
  std::uint32_t window_packets = 16;  // per flow
};

class PacketNetwork : public sim::Component {
 public:
  using RouteId = std::uint32_t;

  PacketNetwork(sim::Context context, std::string name, PacketNetworkParams params = {});

  ResourceId add_resource(const Resource& resource);
  const Resource& resource(ResourceId id) const { return resources_.at(id).spec; }
  // Not interned (routes are cheap here); a cap paces injection to one packet per packet/cap.
  RouteId add_route(std::span<const ResourceId> path, double rate_cap = kUncapped);
  sim::Tick route_latency_ps(RouteId route) const { return routes_.at(route).latency_ps; }

  void start_flow(RouteId route, std::uint64_t bytes, sim::Handler on_complete, sim::Payload payload = {});

  std::uint64_t bytes_carried(ResourceId id) const { return resources_.at(id).bytes_carried->value(); }
  // Total serialisation time of a resource up to the end of the run (its busy time).
  double busy_ps(ResourceId id, sim::Tick /*until_ps*/) const { return static_cast<double>(resources_.at(id).busy_ps); }
  std::uint64_t flows_completed() const { return flows_completed_; }
  std::uint64_t packets() const { return packets_; }

 private:
  struct ResourceEntry {
    Resource spec;
    sim::Tick free_at_ps = 0;  // when the hop finishes serialising what is queued on it
    sim::Tick busy_ps = 0;
    sim::stats::Counter* bytes_carried = nullptr;
  };
  struct Route {
    std::vector<ResourceId> path;
    double cap = kUncapped;
    sim::Tick latency_ps = 0;
  };
  struct Flow {
    RouteId route = 0;
    std::uint64_t bytes = 0;
    std::uint64_t injected = 0;
    std::uint64_t delivered = 0;
    std::uint32_t in_flight = 0;
    sim::Tick next_inject_ps = 0;
    bool inject_pending = false;
    sim::Handler on_complete;
    sim::Payload payload;
  };

  void try_inject(std::uint32_t flow);
  void enter_hop(std::uint32_t flow, std::uint32_t hop, std::uint32_t bytes);
  void on_hop_done(const sim::Payload& payload);
  void on_inject(const sim::Payload& payload);

  PacketNetworkParams params_;
  std::vector<ResourceEntry> resources_;
  std::vector<Route> routes_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_flows_;
  std::uint64_t flows_completed_ = 0;
  std::uint64_t packets_ = 0;
};

}  // namespace tessera::models::fabric
