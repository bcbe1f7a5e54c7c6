#pragma once
// The fluid data-movement model on the engine: flows drain their bytes at max-min fair rates
// over shared resources, and finish after their path's propagation latency.
//
// A flow of B bytes over path P, alone, finishes at start + B / min(bandwidth on P, cap)
// + latency(P), where latency(P) is the sum of the hops' latencies. Under sharing, its rate
// is its max-min share, recomputed whenever any flow in its connected component starts or
// drains; between such instants rates are constant, so the remaining bytes are advanced in
// closed form and one engine event (the earliest drain) is pending for the whole network.
//
// Flows with the same path and cap form a route and always get the same rate, so a route
// keeps one "bytes served per flow" counter and a min-heap of its flows' finish targets (as
// in virtual-time fair queueing): advancing a route is O(1) whatever its number of flows,
// and the solver works on routes, not flows. The routes' next drains wait in one queue,
// ordered by time and, among equal times, by start order (the flow started first completes
// first): a route's entry is replaced whenever its rate, its first flow or its count changes,
// so a drain touches only the routes that drain then. A route's `served` is advanced (its base
// moved to the current time) only when its rate changes, a flow joins it or it drains, never
// for another route's event, so each route's arithmetic is the same whatever else the network
// carries. Cost per start or drain: one solve of the
// affected component (see MaxMinSolver) + O(log routes) per route whose rate it changed +
// O(log flows in route).
//
// Rounding: time is integer ps. A drain is scheduled at the ceiling of the exact time, so a
// flow never finishes early; the event forces the flow it was scheduled for to complete, so
// float residue cannot make it reschedule itself at zero progress (livelock). A flow with
// one byte left at any rate finishes at least 1 ps later.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/fabric/max_min_solver.h"
#include "models/fabric/resource.h"
#include "models/fabric/utilisation_series.h"
#include "sim/component/component.h"

namespace tessera::models::fabric {

using RouteId = std::uint32_t;
using FlowId = std::uint64_t;  // sequence number of the flow, unique in one network

class FlowNetwork : public sim::Component {
 public:
  FlowNetwork(sim::Context context, std::string name);

  // Registers a resource; its name must be a valid instance name (it prefixes its statistics).
  ResourceId add_resource(const Resource& resource);
  const Resource& resource(ResourceId id) const { return resources_.at(id).spec; }
  std::size_t num_resources() const { return resources_.size(); }

  // A route: a path with a per-flow rate cap. Interned: the same path and cap give the same id.
  RouteId add_route(std::span<const ResourceId> path, double rate_cap = kUncapped);
  sim::Tick route_latency_ps(RouteId route) const { return routes_.at(route).latency_ps; }
  // Sum of the hops' latencies: the unloaded latency of the path.
  sim::Tick path_latency_ps(std::span<const ResourceId> path) const;

  // Starts moving `bytes` over the route; `on_complete(payload)` runs when the last byte has
  // arrived (drained + route latency). Zero bytes complete after the latency alone.
  FlowId start_flow(RouteId route, std::uint64_t bytes, sim::Handler on_complete, sim::Payload payload = {});
  FlowId start_flow(std::span<const ResourceId> path, std::uint64_t bytes, double rate_cap, sim::Handler on_complete,
                    sim::Payload payload = {});

  // Current per-flow rate of a route, bytes/s (settled at the end of the current tick).
  double route_rate(RouteId route) const { return routes_.at(route).rate; }

  std::uint64_t bytes_carried(ResourceId id) const { return resources_.at(id).bytes_carried->value(); }
  // Whether resources keep their utilisation series (on by default). Off, a long run keeps no
  // memory per rate change and busy_ps() and utilisation_series() see nothing.
  void record_utilisation(bool on) { record_utilisation_ = on; }
  const std::vector<UtilisationSample>& utilisation_series(ResourceId id) const {
    return resources_.at(id).utilisation.samples();
  }
  // Busy time (integral of utilisation) of a resource over [0, until_ps), in ps.
  double busy_ps(ResourceId id, sim::Tick until_ps) const { return resources_.at(id).utilisation.busy_ps(until_ps); }

  std::size_t active_flows() const { return num_active_flows_; }
  std::uint64_t flows_started() const { return flows_started_->value(); }
  std::uint64_t flows_completed() const { return flows_completed_->value(); }
  std::uint64_t solves() const { return solver_.solves(); }

 private:
  bool record_utilisation_ = true;
  struct ResourceEntry {
    Resource spec;
    sim::stats::Counter* bytes_carried = nullptr;
    UtilisationSeries utilisation;
  };
  struct HeapEntry {
    double target = 0;  // route's served-per-flow count at which the flow has drained
    FlowId id = 0;      // tie-break: start order
    std::uint32_t slot = 0;
  };
  struct Route {
    double cap = kUncapped;
    ResourceId narrowest = ~ResourceId{0};  // the path's lowest-bandwidth resource, for messages
    sim::Tick latency_ps = 0;
    std::uint32_t count = 0;       // active flows
    double rate = 0;               // per flow, in effect since last_update_ps
    double served = 0;             // bytes drained by each flow of the route since it became active
    sim::Tick last_update_ps = 0;  // `served` is exact at this time
    std::uint32_t drain_stamp = 0;  // the stamp of its valid entry in drains_; bumped to invalidate
    bool drain_dirty = false;       // in dirty_drains_: its next drain must be recomputed
    std::vector<HeapEntry> heap;    // min-heap on (target, id)
  };
  // A route's next drain: when its first flow finishes draining at its current rate.
  struct DrainEntry {
    sim::Tick when = 0;
    FlowId flow = 0;  // the route's first flow then
    RouteId route = 0;
    std::uint32_t stamp = 0;  // valid while equal to the route's drain_stamp
  };
  struct Flow {
    RouteId route = 0;
    std::uint64_t bytes = 0;
    sim::Handler on_complete;
    sim::Payload payload;
  };
  struct PathKey {
    std::vector<ResourceId> path;
    double cap;
    bool operator==(const PathKey&) const = default;
  };
  struct PathKeyHash {
    std::size_t operator()(const PathKey& k) const;
  };

  void advance(Route& route);
  void complete_top(RouteId route_id);
  void request_resolve();
  void on_resolve(const sim::Payload&);
  void on_drain(const sim::Payload& payload);
  void resolve();
  void mark_drain_dirty(RouteId route_id);
  void drain_due_routes(RouteId forced);
  void schedule_next_drain();
  void pop_drain();
  void compact_drains();
  [[noreturn]] void throw_past_end(const Route& route, double bytes_left) const;

  MaxMinSolver solver_;
  std::vector<ResourceEntry> resources_;
  std::vector<Route> routes_;  // index = solver flow id
  std::unordered_map<PathKey, RouteId, PathKeyHash> route_index_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_flow_slots_;
  std::vector<DrainEntry> drains_;       // min-heap on (when, flow); stale entries skipped
  std::vector<RouteId> dirty_drains_;    // routes whose entry must be recomputed
  std::size_t num_active_routes_ = 0;
  std::size_t num_active_flows_ = 0;
  FlowId next_flow_id_ = 0;
  sim::EventId drain_event_;
  DrainEntry scheduled_drain_;  // what drain_event_ is for, while it is valid
  bool resolve_pending_ = false;
  sim::stats::Counter* flows_started_;
  sim::stats::Counter* flows_completed_;
};

}  // namespace tessera::models::fabric
