#include "models/fabric/packet_network.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/component/instance_name.h"

namespace tessera::models::fabric {
namespace {

sim::Tick serialise_ps(double bytes, double rate) {
  const double t = std::ceil(bytes * 1e12 / rate);
  if (!(t < static_cast<double>(sim::kEndOfTimePs))) {
    throw sim::TimeRangeError(fmt::format("a packet of {} bytes at {:.6g} B/s would arrive past the end of simulated time", bytes, rate));
  }
  return static_cast<sim::Tick>(t);
}

// A packet in flight is fully described by (flow, hop, bytes): it travels in the payload.
sim::Payload pack(std::uint32_t flow, std::uint32_t hop, std::uint32_t bytes) {
  return {(std::uint64_t{flow} << 32) | hop, bytes};
}

}  // namespace

PacketNetwork::PacketNetwork(sim::Context context, std::string name, PacketNetworkParams params)
    : Component(context, std::move(name)), params_(params) {
  if (params_.packet_bytes == 0 || params_.window_packets == 0) {
    throw std::invalid_argument("a packet network needs positive packet size and window");
  }
}

ResourceId PacketNetwork::add_resource(const Resource& resource) {
  if (!sim::is_valid_instance_name(resource.name)) {
    throw std::invalid_argument(fmt::format("{}: invalid resource name '{}'", name(), resource.name));
  }
  if (!(resource.bandwidth_bytes_per_s > 0.0)) throw std::invalid_argument("a resource needs a positive bandwidth");
  ResourceEntry e;
  e.spec = resource;
  e.bytes_carried = &add_counter(resource.name + ".bytes_carried", sim::stats::Unit::kBytes,
                                 "bytes of packets serialised on this resource");
  resources_.push_back(std::move(e));
  return static_cast<ResourceId>(resources_.size() - 1);
}

PacketNetwork::RouteId PacketNetwork::add_route(std::span<const ResourceId> path, double rate_cap) {
  Route r;
  r.path.assign(path.begin(), path.end());
  r.cap = rate_cap;
  for (ResourceId id : path) r.latency_ps += resources_.at(id).spec.latency_ps;
  routes_.push_back(std::move(r));
  return static_cast<RouteId>(routes_.size() - 1);
}

void PacketNetwork::start_flow(RouteId route, std::uint64_t bytes, sim::Handler on_complete, sim::Payload payload) {
  const Route& r = routes_.at(route);
  if (bytes == 0 || r.path.empty()) {
    ++flows_completed_;
    engine().schedule(r.latency_ps, on_complete, payload);
    return;
  }
  std::uint32_t slot;
  if (!free_flows_.empty()) {
    slot = free_flows_.back();
    free_flows_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  flows_[slot] = Flow{route, bytes, 0, 0, 0, now(), false, on_complete, payload};
  try_inject(slot);
}

void PacketNetwork::try_inject(std::uint32_t slot) {
  Flow& f = flows_[slot];
  const double cap = routes_[f.route].cap;
  while (f.in_flight < params_.window_packets && f.injected < f.bytes) {
    if (now() < f.next_inject_ps) {
      if (!f.inject_pending) {
        f.inject_pending = true;
        engine().schedule_at(f.next_inject_ps, sim::bind<&PacketNetwork::on_inject>(this), {slot, 0});
      }
      return;
    }
    const auto bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(params_.packet_bytes, f.bytes - f.injected));
    f.injected += bytes;
    ++f.in_flight;
    ++packets_;
    if (cap != kUncapped) f.next_inject_ps = now() + serialise_ps(bytes, cap);
    enter_hop(slot, 0, bytes);
  }
}

void PacketNetwork::on_inject(const sim::Payload& payload) {
  const auto slot = static_cast<std::uint32_t>(payload.a);
  flows_[slot].inject_pending = false;
  try_inject(slot);
}

// FIFO: packets are served in the order they reach the hop (events run in time order).
void PacketNetwork::enter_hop(std::uint32_t slot, std::uint32_t hop, std::uint32_t bytes) {
  ResourceEntry& r = resources_[routes_[flows_[slot].route].path[hop]];
  const sim::Tick ser = serialise_ps(bytes, r.spec.bandwidth_bytes_per_s);
  const sim::Tick start = std::max(now(), r.free_at_ps);
  r.free_at_ps = start + ser;
  r.busy_ps += ser;
  r.bytes_carried->add(bytes);
  engine().schedule_at(start + ser + r.spec.latency_ps, sim::bind<&PacketNetwork::on_hop_done>(this),
                       pack(slot, hop, bytes));
}

void PacketNetwork::on_hop_done(const sim::Payload& payload) {
  const auto slot = static_cast<std::uint32_t>(payload.a >> 32);
  const auto hop = static_cast<std::uint32_t>(payload.a & 0xffffffffu);
  const auto bytes = static_cast<std::uint32_t>(payload.b);
  Flow& f = flows_[slot];
  if (hop + 1 < routes_[f.route].path.size()) {
    enter_hop(slot, hop + 1, bytes);
    return;
  }
  f.delivered += bytes;
  --f.in_flight;
  if (f.delivered == f.bytes) {
    ++flows_completed_;
    engine().schedule(0, f.on_complete, f.payload);
    free_flows_.push_back(slot);
    return;
  }
  try_inject(slot);
}

}  // namespace tessera::models::fabric
