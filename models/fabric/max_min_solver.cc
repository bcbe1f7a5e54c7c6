#include "models/fabric/max_min_solver.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <stdexcept>

namespace tessera::models::fabric {
namespace {

// Shares are compared with a relative slack so that float noise in remaining capacity never
// makes the lazy heap re-insert a resource forever.
constexpr double kShareSlack = 1e-12;

// Min-heap order for std::push_heap & co. (which build max-heaps); ties by id, deterministic.
struct Greater {
  template <class P>
  bool operator()(const P& x, const P& y) const {
    return x > y;
  }
};

}  // namespace

ResourceId MaxMinSolver::add_resource(double capacity_bytes_per_s) {
  if (!(capacity_bytes_per_s > 0.0) || capacity_bytes_per_s == kUncapped) {
    throw std::invalid_argument("a resource needs a finite positive capacity");
  }
  ResourceState r;
  r.capacity = capacity_bytes_per_s;
  resources_.push_back(std::move(r));
  return static_cast<ResourceId>(resources_.size() - 1);
}

SolverFlowId MaxMinSolver::add_flow(std::span<const ResourceId> path, double rate_cap, std::uint32_t count) {
  if (!(rate_cap > 0.0)) throw std::invalid_argument("a flow's rate cap must be positive");
  if (path.empty() && rate_cap == kUncapped) throw std::invalid_argument("a flow with an empty path needs a cap");
  for (ResourceId r : path) {
    if (r >= resources_.size()) throw std::out_of_range("flow path names an unknown resource");
  }
  FlowState f;
  f.path_begin = static_cast<std::uint32_t>(path_pool_.size());
  f.path_len = static_cast<std::uint32_t>(path.size());
  f.cap = rate_cap;
  path_pool_.insert(path_pool_.end(), path.begin(), path.end());
  flows_.push_back(f);
  const auto id = static_cast<SolverFlowId>(flows_.size() - 1);
  set_count(id, count);
  return id;
}

void MaxMinSolver::set_count(SolverFlowId flow, std::uint32_t count) {
  FlowState& f = flows_.at(flow);
  if (f.count == count) return;
  const bool was_active = f.count > 0;
  const double delta = f.rate * (static_cast<double>(count) - static_cast<double>(f.count));
  f.count = count;
  if (f.path_len == 0) {  // nothing shared: the cap is the rate
    f.rate = count > 0 ? f.cap : 0.0;
    return;
  }
  for (ResourceId r : path(flow)) resources_[r].load += delta;
  if (!was_active && count > 0) activate(flow);
  if (was_active && count == 0) {
    deactivate(flow);
    f.rate = 0.0;
  }
  mark_dirty(flow);
}

void MaxMinSolver::activate(SolverFlowId flow) {
  for (ResourceId r : path(flow)) resources_[r].active.push_back(flow);
}

void MaxMinSolver::deactivate(SolverFlowId flow) {
  // Linear in the resource's active classes: the same order as the solve that follows.
  for (ResourceId r : path(flow)) {
    std::vector<SolverFlowId>& a = resources_[r].active;
    auto it = std::find(a.begin(), a.end(), flow);
    if (it != a.end()) {
      *it = a.back();
      a.pop_back();
    }
  }
}

void MaxMinSolver::mark_dirty(SolverFlowId flow) {
  for (ResourceId r : path(flow)) {
    if (!resources_[r].dirty) {
      resources_[r].dirty = true;
      dirty_.push_back(r);
    }
  }
}

std::span<const SolverFlowId> MaxMinSolver::solve() {
  component_resources_.clear();
  component_flows_.clear();
  changed_.clear();
  touched_.clear();
  if (dirty_.empty()) return {};
  ++solves_;
  for (ResourceId r : dirty_) refresh_fit(r);
  next_epoch();
  // Every class crossing a changed resource: its cap where all its resources fit, else it
  // joins the filling, which starts from its non-fitting resources.
  stack_.clear();
  for (ResourceId r : dirty_) {
    resources_[r].dirty = false;
    touch(r);
    for (SolverFlowId id : resources_[r].active) {
      if (flows_[id].visit == epoch_) continue;
      flows_[id].visit = epoch_;
      bool fits = true;
      for (ResourceId q : path(id)) fits = fits && resources_[q].fits;
      if (fits) {
        set_rate(id, flows_[id].cap);
      } else {
        component_flows_.push_back(id);
        push_unfitting(id);
      }
    }
  }
  dirty_.clear();
  if (component_flows_.empty()) {
    ++solves_without_filling_;
    return changed_;
  }
  collect_component();
  fill_component();
  return changed_;
}

void MaxMinSolver::next_epoch() {
  if (++epoch_ == 0) {  // wrapped: clear the stamps once every 4 billion solves
    for (ResourceState& r : resources_) r.visit = r.touch = 0;
    for (FlowState& f : flows_) f.visit = 0;
    epoch_ = 1;
  }
}

// A margin far above float noise, so that a sum that only rounds below the capacity does not
// count as fitting (progressive filling then decides, exactly).
void MaxMinSolver::refresh_fit(ResourceId resource) {
  ResourceState& r = resources_[resource];
  double demand = 0;
  for (SolverFlowId id : r.active) {
    const FlowState& f = flows_[id];
    if (f.cap == kUncapped) {
      r.fits = false;
      return;
    }
    demand += f.cap * static_cast<double>(f.count);
  }
  r.fits = demand <= r.capacity * (1.0 - 1e-9);
}

void MaxMinSolver::touch(ResourceId resource) {
  if (resources_[resource].touch == epoch_) return;
  resources_[resource].touch = epoch_;
  touched_.push_back(resource);
}

void MaxMinSolver::set_rate(SolverFlowId flow, double rate) {
  FlowState& f = flows_[flow];
  if (f.rate == rate) return;
  const double delta = (rate - f.rate) * static_cast<double>(f.count);
  f.rate = rate;
  changed_.push_back(flow);
  for (ResourceId q : path(flow)) {
    resources_[q].load += delta;
    touch(q);
  }
}

void MaxMinSolver::push_unfitting(SolverFlowId flow) {
  for (ResourceId q : path(flow)) {
    ResourceState& r = resources_[q];
    if (!r.fits && r.visit != epoch_) {
      r.visit = epoch_;
      stack_.push_back(q);
    }
  }
}

// Depth-first search through the non-fitting resources and the classes crossing them: the
// filling's component(s). Fitting resources are not crossed: they bind no one.
void MaxMinSolver::collect_component() {
  while (!stack_.empty()) {
    const ResourceId r = stack_.back();
    stack_.pop_back();
    component_resources_.push_back(r);
    for (SolverFlowId f : resources_[r].active) {
      if (flows_[f].visit == epoch_) continue;
      flows_[f].visit = epoch_;
      component_flows_.push_back(f);
      push_unfitting(f);
    }
  }
}

// Only the filling's resources (the non-fitting ones) carry remaining and unfrozen.
void MaxMinSolver::freeze(SolverFlowId flow, double rate) {
  FlowState& f = flows_[flow];
  f.frozen = true;
  const double taken = rate * static_cast<double>(f.count);
  for (ResourceId q : path(flow)) {
    ResourceState& r = resources_[q];
    if (r.fits) continue;
    r.remaining = std::max(0.0, r.remaining - taken);
    r.unfrozen -= f.count;
  }
  set_rate(flow, rate);
}

void MaxMinSolver::fill_component() {
  for (ResourceId r : component_resources_) {
    resources_[r].remaining = resources_[r].capacity;
    resources_[r].unfrozen = 0;
  }
  capped_.clear();
  for (SolverFlowId id : component_flows_) {
    FlowState& f = flows_[id];
    f.frozen = false;
    for (ResourceId q : path(id)) {
      if (!resources_[q].fits) resources_[q].unfrozen += f.count;
    }
    if (f.cap != kUncapped) capped_.emplace_back(f.cap, id);
  }
  std::sort(capped_.begin(), capped_.end());
  heap_.clear();
  for (ResourceId r : component_resources_) {
    const ResourceState& s = resources_[r];
    if (s.unfrozen > 0) heap_.emplace_back(s.remaining / static_cast<double>(s.unfrozen), r);
  }
  std::make_heap(heap_.begin(), heap_.end(), Greater{});

  std::size_t unfrozen_flows = component_flows_.size();
  std::size_t next_cap = 0;
  while (unfrozen_flows > 0) {
    // The bottleneck: the smallest current share. Stored shares may be stale-low (shares only
    // grow as flows freeze), so a popped entry is re-inserted when it has grown.
    double level = kUncapped;
    ResourceId bottleneck = 0;
    bool found = false;
    while (!heap_.empty()) {
      const auto [stored, r] = heap_.front();
      const ResourceState& s = resources_[r];
      if (s.unfrozen == 0) {
        std::pop_heap(heap_.begin(), heap_.end(), Greater{});
        heap_.pop_back();
        continue;
      }
      const double share = s.remaining / static_cast<double>(s.unfrozen);
      if (share > stored * (1.0 + kShareSlack)) {
        std::pop_heap(heap_.begin(), heap_.end(), Greater{});
        heap_.back().first = share;
        std::push_heap(heap_.begin(), heap_.end(), Greater{});
        continue;
      }
      level = share;
      bottleneck = r;
      found = true;
      break;
    }
    while (next_cap < capped_.size() && flows_[capped_[next_cap].second].frozen) ++next_cap;
    if (next_cap < capped_.size() && capped_[next_cap].first <= level) {
      freeze(capped_[next_cap].second, capped_[next_cap].first);
      ++next_cap;
      --unfrozen_flows;
      continue;
    }
    assert(found);  // every unfrozen flow crosses a resource with unfrozen flows
    if (!found) break;
    std::pop_heap(heap_.begin(), heap_.end(), Greater{});
    heap_.pop_back();
    for (SolverFlowId id : resources_[bottleneck].active) {
      if (!flows_[id].frozen) {
        freeze(id, level);
        --unfrozen_flows;
      }
    }
  }
}

}  // namespace tessera::models::fabric
