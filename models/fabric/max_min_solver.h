#pragma once
// Max-min fair rates of flows over shared resources, by progressive filling. Pure: no engine,
// no time; FlowNetwork drives it.
//
// A solver "flow" is a class of `count` identical flows (same path, same per-flow cap): they
// get identical max-min rates, so FlowNetwork keeps one entry per route and changes its
// count as flows come and go. The solver never sees individual bytes.
//
// Progressive filling: raise every unfrozen flow's rate together; the first resource to fill
// (smallest remaining capacity / unfrozen flow count) freezes its flows at that share, and a
// flow whose cap is below the current share freezes at its cap first. Repeat until all are
// frozen. Shares of the remaining resources only grow as flows freeze, so a min-heap with
// lazy re-insertion finds each bottleneck without rescanning.
//
// Fitting resources drop out. A resource "fits" when every class crossing it is capped and the
// caps' sum is below its capacity: it is never saturated, so it is nobody's bottleneck, and the
// max-min allocation is the same with it removed. So a class whose resources all fit gets its
// cap, and the filling runs over the non-fitting resources only. This is the common case of
// latency-bound loads, whose windowed caps are far below the bandwidth they share.
//
// Incremental: add_flow/set_count mark the resources of the changed path dirty; solve() gives
// the classes crossing a dirty resource their cap where their resources all fit, and refills the
// connected component(s) of non-fitting resources (linked through active classes) that the
// others reach; no other rate can have changed. Loads are kept up to date as rates and counts
// change.
// Cost of solve(), for D dirty resources with their classes, and a filling of R resources, F
// classes and P = sum of path lengths: O(D + P + (R + F_capped) log R + F_capped log F_capped).
// Memory is flat vectors; no maps.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "models/fabric/resource.h"

namespace tessera::models::fabric {

using SolverFlowId = std::uint32_t;

class MaxMinSolver {
 public:
  // Capacity in bytes per second; must be > 0.
  ResourceId add_resource(double capacity_bytes_per_s);

  // A class of `count` identical flows over `path` (resource ids, order irrelevant here) with a
  // per-flow cap. An empty path needs a finite cap (its rate is the cap). Ids are stable and
  // never reused; a class with count 0 costs only its memory.
  SolverFlowId add_flow(std::span<const ResourceId> path, double rate_cap = kUncapped, std::uint32_t count = 1);
  void set_count(SolverFlowId flow, std::uint32_t count);

  // Recomputes what the changes since the last call can affect; returns the flows whose rate
  // changed (only ones with count > 0). Valid until the next call.
  std::span<const SolverFlowId> solve();
  // Resources whose load() may have moved in the last solve() or in the set_count calls before it
  // (the dirty ones, and those on the path of a flow whose rate the solve changed).
  std::span<const ResourceId> touched_resources() const { return touched_; }

  // Rate of one flow of the class, bytes/s; 0 while count is 0.
  double rate(SolverFlowId flow) const { return flows_[flow].rate; }
  std::uint32_t count(SolverFlowId flow) const { return flows_[flow].count; }
  // Sum of count x rate over the flows crossing `resource` (after solve()), kept by deltas.
  double load(ResourceId resource) const { return resources_[resource].load; }
  double capacity(ResourceId resource) const { return resources_[resource].capacity; }
  std::span<const ResourceId> path(SolverFlowId flow) const {
    const FlowState& f = flows_[flow];
    return {path_pool_.data() + f.path_begin, f.path_len};
  }
  std::size_t num_resources() const { return resources_.size(); }
  std::size_t num_flows() const { return flows_.size(); }
  std::uint64_t solves() const { return solves_; }
  // Solves that needed no filling: every class around the change fits (a subset of solves()).
  std::uint64_t solves_without_filling() const { return solves_without_filling_; }

 private:
  struct ResourceState {
    double capacity = 0;
    double load = 0;
    std::vector<SolverFlowId> active;  // classes with count > 0 crossing this resource
    // Scratch of one solve.
    double remaining = 0;
    std::uint64_t unfrozen = 0;  // sum of counts of unfrozen classes crossing it
    std::uint32_t visit = 0;     // epoch of the filling's search
    std::uint32_t touch = 0;     // epoch of its entry in touched_
    bool dirty = false;
    // Every active class capped and the caps' sum below the capacity. Refreshed whenever the
    // resource is dirty, the only time it can change.
    bool fits = true;
  };
  struct FlowState {
    std::uint32_t path_begin = 0;
    std::uint32_t path_len = 0;
    double cap = kUncapped;
    double rate = 0;
    std::uint32_t count = 0;
    std::uint32_t visit = 0;
    bool frozen = false;
  };

  void activate(SolverFlowId flow);
  void deactivate(SolverFlowId flow);
  void mark_dirty(SolverFlowId flow);
  void next_epoch();
  void refresh_fit(ResourceId resource);
  void touch(ResourceId resource);
  void set_rate(SolverFlowId flow, double rate);
  void push_unfitting(SolverFlowId flow);
  void collect_component();
  void fill_component();
  void freeze(SolverFlowId flow, double rate);

  std::vector<ResourceState> resources_;
  std::vector<FlowState> flows_;
  std::vector<ResourceId> path_pool_;  // all paths, back to back
  std::vector<ResourceId> dirty_;
  // Scratch reused across solves, so steady state allocates nothing.
  std::vector<ResourceId> component_resources_;  // the filling's (non-fitting) resources
  std::vector<SolverFlowId> component_flows_;     // the filling's classes
  std::vector<SolverFlowId> changed_;             // classes whose rate changed (solve's result)
  std::vector<ResourceId> touched_;
  std::vector<ResourceId> stack_;
  std::vector<std::pair<double, ResourceId>> heap_;
  std::vector<std::pair<double, SolverFlowId>> capped_;
  std::uint32_t epoch_ = 0;
  std::uint64_t solves_ = 0;
  std::uint64_t solves_without_filling_ = 0;
};

}  // namespace tessera::models::fabric
