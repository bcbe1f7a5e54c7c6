#include "models/fabric/flow_network.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/component/instance_name.h"

namespace tessera::models::fabric {
namespace {

// Runs after every ordinary event of the same tick, so all flow starts of one tick share a solve.
constexpr sim::Priority kResolvePriority = 255;

// Bytes of float residue below which a flow counts as drained (sub-ppb of any real transfer;
// far below 1 ps at any rate above 1 MB/s).
constexpr double kResidueBytes = 1e-6;

// Min-heap order on (target, id).
struct Later {
  template <class E>
  bool operator()(const E& x, const E& y) const {
    return x.target != y.target ? x.target > y.target : x.id > y.id;
  }
};

// Min-heap order on (when, flow): among flows draining in the same picosecond, the one started
// first completes first (flow ids are start order).
struct LaterDrain {
  template <class E>
  bool operator()(const E& x, const E& y) const {
    return x.when != y.when ? x.when > y.when : x.flow > y.flow;
  }
};

// Whole ps needed to move `bytes` at `rate`, rounded up: never early. At least 1 for any
// positive residue, so every drain event makes progress. sim::kMaxTick when the time would pass
// the end of simulated time (the caller reports it).
sim::Tick ceil_ps(double bytes, double rate) {
  if (bytes <= kResidueBytes) return 0;
  const double t = bytes * 1e12 / rate;
  if (!(t < static_cast<double>(sim::kEndOfTimePs))) return sim::kMaxTick;
  auto k = static_cast<sim::Tick>(t);
  if (static_cast<double>(k) < t) ++k;
  return std::max<sim::Tick>(k, 1);
}

}  // namespace

std::size_t FlowNetwork::PathKeyHash::operator()(const PathKey& k) const {
  std::size_t h = std::hash<double>{}(k.cap);
  for (ResourceId r : k.path) h = h * 1000003u ^ r;
  return h;
}

FlowNetwork::FlowNetwork(sim::Context context, std::string name)
    : Component(context, std::move(name)),
      flows_started_(&add_counter("flows_started", sim::stats::Unit::kCount, "flows started")),
      flows_completed_(&add_counter("flows_completed", sim::stats::Unit::kCount, "flows whose last byte arrived")) {}

ResourceId FlowNetwork::add_resource(const Resource& resource) {
  if (!sim::is_valid_instance_name(resource.name)) {
    throw std::invalid_argument(fmt::format("{}: invalid resource name '{}'", name(), resource.name));
  }
  const ResourceId id = solver_.add_resource(resource.bandwidth_bytes_per_s);
  ResourceEntry entry;
  entry.spec = resource;
  entry.bytes_carried = &add_counter(resource.name + ".bytes_carried", sim::stats::Unit::kBytes,
                                     "bytes of flows that drained through this resource");
  resources_.push_back(std::move(entry));
  return id;
}

sim::Tick FlowNetwork::path_latency_ps(std::span<const ResourceId> path) const {
  // Each latency is below the end of simulated time (2^62 ps); the sum stops there, where the
  // engine refuses to schedule it.
  sim::Tick sum = 0;
  for (ResourceId r : path) sum = std::min(sum + std::min(resources_.at(r).spec.latency_ps, sim::kEndOfTimePs), sim::kEndOfTimePs);
  return sum;
}

RouteId FlowNetwork::add_route(std::span<const ResourceId> path, double rate_cap) {
  PathKey key{std::vector<ResourceId>(path.begin(), path.end()), rate_cap};
  if (auto it = route_index_.find(key); it != route_index_.end()) return it->second;
  const sim::Tick latency = path_latency_ps(path);  // also checks the ids
  const RouteId id = solver_.add_flow(path, rate_cap, 0);
  Route route;
  route.cap = rate_cap;
  route.latency_ps = latency;
  if (!path.empty()) route.narrowest = path.front();
  for (ResourceId r : path) {
    if (resources_[r].spec.bandwidth_bytes_per_s < resources_[route.narrowest].spec.bandwidth_bytes_per_s) route.narrowest = r;
  }
  routes_.push_back(std::move(route));
  route_index_.emplace(std::move(key), id);
  return id;
}

FlowId FlowNetwork::start_flow(std::span<const ResourceId> path, std::uint64_t bytes, double rate_cap,
                               sim::Handler on_complete, sim::Payload payload) {
  return start_flow(add_route(path, rate_cap), bytes, on_complete, payload);
}

void FlowNetwork::advance(Route& route) {
  const sim::Tick t = now();
  if (t > route.last_update_ps) {
    route.served += route.rate * static_cast<double>(t - route.last_update_ps) / 1e12;
    route.last_update_ps = t;
  }
}

FlowId FlowNetwork::start_flow(RouteId route_id, std::uint64_t bytes, sim::Handler on_complete,
                               sim::Payload payload) {
  if (!on_complete) throw std::invalid_argument(fmt::format("{}: start_flow needs a completion handler", name()));
  Route& route = routes_.at(route_id);
  const FlowId id = next_flow_id_++;
  flows_started_->add();
  if (bytes == 0) {  // nothing to serialise: only the propagation latency
    flows_completed_->add();
    engine().schedule(route.latency_ps, on_complete, payload);
    return id;
  }
  advance(route);
  if (route.count == 0) {
    route.served = 0;  // rebase, so `served` never grows without bound
    route.last_update_ps = now();
    ++num_active_routes_;
  }
  std::uint32_t slot;
  if (!free_flow_slots_.empty()) {
    slot = free_flow_slots_.back();
    free_flow_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  flows_[slot] = Flow{route_id, bytes, on_complete, payload};
  route.heap.push_back({route.served + static_cast<double>(bytes), id, slot});
  std::push_heap(route.heap.begin(), route.heap.end(), Later{});
  ++route.count;
  ++num_active_flows_;
  solver_.set_count(route_id, route.count);
  mark_drain_dirty(route_id);  // the new flow may drain first
  request_resolve();
  return id;
}

void FlowNetwork::request_resolve() {
  if (resolve_pending_) return;
  resolve_pending_ = true;
  schedule_self<&FlowNetwork::on_resolve>(this, 0, {}, kResolvePriority);
}

void FlowNetwork::on_resolve(const sim::Payload&) {
  resolve_pending_ = false;
  resolve();
}

// Drains the flow at the top of the route's heap: its bytes are counted on every hop and its
// owner is told after the route's propagation latency.
void FlowNetwork::complete_top(RouteId route_id) {
  Route& route = routes_[route_id];
  std::pop_heap(route.heap.begin(), route.heap.end(), Later{});
  const std::uint32_t slot = route.heap.back().slot;
  route.heap.pop_back();
  const Flow& flow = flows_[slot];
  for (ResourceId r : solver_.path(route_id)) resources_[r].bytes_carried->add(flow.bytes);
  engine().schedule(route.latency_ps, flow.on_complete, flow.payload);
  flows_completed_->add();
  free_flow_slots_.push_back(slot);
  --num_active_flows_;
  --route.count;
  solver_.set_count(route_id, route.count);
  if (route.count == 0) --num_active_routes_;
  mark_drain_dirty(route_id);
}

void FlowNetwork::mark_drain_dirty(RouteId route_id) {
  Route& route = routes_[route_id];
  if (route.drain_dirty) return;
  route.drain_dirty = true;
  dirty_drains_.push_back(route_id);
}

void FlowNetwork::on_drain(const sim::Payload& payload) {
  drain_event_ = {};
  // The flow this event was scheduled for drains now, whatever float residue says: the event
  // time was rounded up, so the true drain is not later. This is what rules out livelock.
  const auto forced = static_cast<RouteId>(payload.a);
  {
    Route& route = routes_[forced];
    advance(route);
    if (!route.heap.empty() && route.heap.front().id == payload.b) {
      route.served = std::max(route.served, route.heap.front().target);
    }
  }
  drain_due_routes(forced);
  resolve();
}

// Completes the flows of every route whose drain is due now (its queue entry's time has come),
// and of the forced route.
void FlowNetwork::drain_due_routes(RouteId forced) {
  const auto drain = [this](RouteId id) {
    Route& route = routes_[id];
    advance(route);
    while (!route.heap.empty() && route.heap.front().target - route.served <= kResidueBytes) complete_top(id);
    mark_drain_dirty(id);  // its entry is used up, drained or not
  };
  drain(forced);
  const sim::Tick t = now();
  while (!drains_.empty() && drains_.front().when <= t) {
    const DrainEntry entry = drains_.front();
    pop_drain();
    if (entry.stamp != routes_[entry.route].drain_stamp || entry.route == forced) continue;
    drain(entry.route);
  }
}

void FlowNetwork::resolve() {
  const sim::Tick t = now();
  for (SolverFlowId id : solver_.solve()) {
    Route& route = routes_[id];
    advance(route);  // at the old rate, up to now
    route.rate = solver_.rate(id);
    mark_drain_dirty(id);
  }
  for (ResourceId r : record_utilisation_ ? solver_.touched_resources() : std::span<const ResourceId>{}) {
    const double frac = std::clamp(solver_.load(r) / solver_.capacity(r), 0.0, 1.0);
    resources_[r].utilisation.record(t, frac);
  }
  schedule_next_drain();
}

void FlowNetwork::schedule_next_drain() {
  for (RouteId id : dirty_drains_) {
    Route& route = routes_[id];
    route.drain_dirty = false;
    ++route.drain_stamp;  // its old entry, if any, is stale now
    if (route.count == 0 || !(route.rate > 0.0)) continue;
    const double left = route.heap.front().target - route.served;
    const sim::Tick drain_ps = ceil_ps(left, route.rate);
    if (drain_ps > sim::kEndOfTimePs - route.last_update_ps) throw_past_end(route, left);
    drains_.push_back({std::max(now(), route.last_update_ps + drain_ps), route.heap.front().id, id, route.drain_stamp});
    std::push_heap(drains_.begin(), drains_.end(), LaterDrain{});
  }
  dirty_drains_.clear();
  while (!drains_.empty() && drains_.front().stamp != routes_[drains_.front().route].drain_stamp) pop_drain();
  if (drains_.size() > 2 * num_active_routes_ + 64) compact_drains();
  if (drains_.empty()) {
    if (drain_event_.valid()) cancel(drain_event_);
    drain_event_ = {};
    return;
  }
  const DrainEntry& next = drains_.front();
  if (drain_event_.valid()) {
    if (next.when == scheduled_drain_.when && next.flow == scheduled_drain_.flow &&
        next.stamp == scheduled_drain_.stamp) {
      return;  // the pending event is still the earliest drain
    }
    cancel(drain_event_);
  }
  scheduled_drain_ = next;
  drain_event_ = engine().schedule_at(next.when, sim::bind<&FlowNetwork::on_drain>(this),
                                      sim::Payload{next.route, next.flow});
}

void FlowNetwork::pop_drain() {
  std::pop_heap(drains_.begin(), drains_.end(), LaterDrain{});
  drains_.pop_back();
}

// Drops the stale entries, which pile up when rates change more often than routes drain.
void FlowNetwork::compact_drains() {
  std::erase_if(drains_, [this](const DrainEntry& e) { return e.stamp != routes_[e.route].drain_stamp; });
  std::make_heap(drains_.begin(), drains_.end(), LaterDrain{});
}

void FlowNetwork::throw_past_end(const Route& route, double bytes_left) const {
  const ResourceEntry& narrowest = resources_.at(route.narrowest);
  throw sim::TimeRangeError(fmt::format("{}: {:.6g} bytes left at {:.6g} B/s (the route's narrowest resource: {} at "
                                        "{:.6g} B/s) would arrive past the end of simulated time",
                                        name(), bytes_left, route.rate, narrowest.spec.name,
                                        narrowest.spec.bandwidth_bytes_per_s));
}

}  // namespace tessera::models::fabric
