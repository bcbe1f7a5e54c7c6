#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "models/fabric/max_min_solver.h"

using namespace tessera::models::fabric;

namespace {

std::vector<ResourceId> path(std::initializer_list<ResourceId> ids) { return ids; }

}  // namespace

TEST_CASE("one flow alone takes the whole resource") {
  MaxMinSolver s;
  const ResourceId l = s.add_resource(100.0);
  const auto f = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(f) == doctest::Approx(100.0));
  CHECK(s.load(l) == doctest::Approx(100.0));
}

TEST_CASE("classic three-link example: L2 is the bottleneck of A and C, B takes the rest of L1") {
  // A crosses L1 and L2, B only L1, C only L2. L1 = 10, L2 = 4.
  // L2's share 4/2 = 2 < L1's share 10/2 = 5: A = C = 2; then B gets 10 - 2 = 8.
  MaxMinSolver s;
  const ResourceId l1 = s.add_resource(10.0);
  const ResourceId l2 = s.add_resource(4.0);
  const auto a = s.add_flow(path({l1, l2}));
  const auto b = s.add_flow(path({l1}));
  const auto c = s.add_flow(path({l2}));
  s.solve();
  CHECK(s.rate(a) == doctest::Approx(2.0));
  CHECK(s.rate(b) == doctest::Approx(8.0));
  CHECK(s.rate(c) == doctest::Approx(2.0));
}

TEST_CASE("three-link example with L1 the bottleneck") {
  // L1 = 6, L2 = 10: L1's share 3 < L2's 5, so A = B = 3 and C = 10 - 3 = 7.
  MaxMinSolver s;
  const ResourceId l1 = s.add_resource(6.0);
  const ResourceId l2 = s.add_resource(10.0);
  const auto a = s.add_flow(path({l1, l2}));
  const auto b = s.add_flow(path({l1}));
  const auto c = s.add_flow(path({l2}));
  s.solve();
  CHECK(s.rate(a) == doctest::Approx(3.0));
  CHECK(s.rate(b) == doctest::Approx(3.0));
  CHECK(s.rate(c) == doctest::Approx(7.0));
}

TEST_CASE("a capped flow takes its cap and the others share the remainder") {
  MaxMinSolver s;
  const ResourceId l = s.add_resource(12.0);
  const auto capped = s.add_flow(path({l}), 2.0);
  const auto x = s.add_flow(path({l}));
  const auto y = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(capped) == doctest::Approx(2.0));
  CHECK(s.rate(x) == doctest::Approx(5.0));
  CHECK(s.rate(y) == doctest::Approx(5.0));
}

TEST_CASE("a cap above the fair share does not bind") {
  MaxMinSolver s;
  const ResourceId l = s.add_resource(12.0);
  const auto capped = s.add_flow(path({l}), 10.0);
  const auto x = s.add_flow(path({l}));
  const auto y = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(capped) == doctest::Approx(4.0));
  CHECK(s.rate(x) == doctest::Approx(4.0));
  CHECK(s.rate(y) == doctest::Approx(4.0));
}

TEST_CASE("a class of count n weighs as n flows") {
  MaxMinSolver s;
  const ResourceId l = s.add_resource(8.0);
  const auto three = s.add_flow(path({l}), kUncapped, 3);
  const auto one = s.add_flow(path({l}));
  s.solve();
  CHECK(s.rate(three) == doctest::Approx(2.0));
  CHECK(s.rate(one) == doctest::Approx(2.0));
  s.set_count(three, 0);
  s.solve();
  CHECK(s.rate(one) == doctest::Approx(8.0));
  CHECK(s.rate(three) == 0.0);
}

TEST_CASE("only the component touched by a change is recomputed") {
  MaxMinSolver s;
  const ResourceId l1 = s.add_resource(10.0);
  const ResourceId l2 = s.add_resource(10.0);
  const auto a = s.add_flow(path({l1}));
  const auto b = s.add_flow(path({l2}));
  CHECK(s.solve().size() == 2);
  CHECK(s.solve().empty());  // nothing changed
  const auto c = s.add_flow(path({l2}));
  const auto changed = s.solve();
  std::vector<SolverFlowId> got(changed.begin(), changed.end());
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<SolverFlowId>{b, c});
  CHECK(s.rate(a) == doctest::Approx(10.0));
  CHECK(s.rate(b) == doctest::Approx(5.0));
}

namespace {

// Random networks of up to 10 resources and 30 flow classes; a class is capped with probability
// `capped_per_4` / 4 (caps 0.5-20 against capacities 1-100), so that with 4 of 4 every component
// is capped and some fit under their caps (every resource fits: no filling) and some do not.
void check_random_networks(unsigned seed, unsigned capped_per_4) {
  // Max-min fair iff feasible and every flow is at its cap or crosses a saturated resource on
  // which no flow gets more than it does (its bottleneck).
  std::mt19937 rng(seed);
  int all_at_cap = 0;
  for (int trial = 0; trial < 50; ++trial) {
    MaxMinSolver s;
    const int num_res = 2 + static_cast<int>(rng() % 10);
    for (int r = 0; r < num_res; ++r) s.add_resource(1.0 + static_cast<double>(rng() % 100));
    const int num_flows = 1 + static_cast<int>(rng() % 30);
    std::vector<double> caps;
    for (int f = 0; f < num_flows; ++f) {
      std::vector<ResourceId> p;
      for (int r = 0; r < num_res; ++r) {
        if (rng() % 3 == 0) p.push_back(static_cast<ResourceId>(r));
      }
      if (p.empty()) p.push_back(static_cast<ResourceId>(rng() % num_res));
      const double cap = rng() % 4 < capped_per_4 ? 0.5 + static_cast<double>(rng() % 20) : kUncapped;
      caps.push_back(cap);
      s.add_flow(p, cap, 1 + rng() % 3);
    }
    s.solve();
    std::vector<double> load(num_res, 0.0), max_rate(num_res, 0.0);
    for (SolverFlowId f = 0; f < s.num_flows(); ++f) {
      for (ResourceId r : s.path(f)) {
        load[r] += s.rate(f) * s.count(f);
        max_rate[r] = std::max(max_rate[r], s.rate(f));
      }
    }
    for (int r = 0; r < num_res; ++r) {
      CHECK(load[r] <= s.capacity(r) * (1 + 1e-9));
      CHECK(s.load(r) == doctest::Approx(load[r]).epsilon(1e-9));
    }
    bool at_caps = true;
    for (SolverFlowId f = 0; f < s.num_flows(); ++f) {
      bool justified = false;
      for (ResourceId r : s.path(f)) {
        const bool saturated = load[r] >= s.capacity(r) * (1 - 1e-9);
        if (saturated && s.rate(f) >= max_rate[r] * (1 - 1e-9)) justified = true;
      }
      CHECK(s.rate(f) <= caps[f] * (1 + 1e-12));
      // A flow with no bottleneck must be held by its cap.
      if (!justified) CHECK(s.rate(f) == doctest::Approx(caps[f]));
      at_caps = at_caps && s.rate(f) == caps[f];
    }
    all_at_cap += at_caps ? 1 : 0;
  }
  // The all-capped draw must exercise both outcomes: networks where every cap fits and ones
  // where a resource binds.
  if (capped_per_4 == 4) {
    CHECK(all_at_cap > 0);
    CHECK(all_at_cap < 50);
  }
}

}  // namespace

TEST_CASE("random networks satisfy the max-min fairness conditions") { check_random_networks(7, 1); }

TEST_CASE("random all-capped networks, some within their caps and some not, are max-min fair") {
  for (unsigned seed : {11u, 12u, 13u}) check_random_networks(seed, 4);
}

TEST_CASE("caps that exactly fill a resource all bind, on either side of the fit test") {
  // Two flows of caps 3 and 7 on a resource of 10: the demand equals the capacity, so the fit
  // test (which keeps a margin) leaves it to progressive filling; both still get their caps.
  MaxMinSolver s;
  const ResourceId r = s.add_resource(10.0);
  const SolverFlowId a = s.add_flow(path({r}), 3.0);
  const SolverFlowId b = s.add_flow(path({r}), 7.0);
  s.solve();
  CHECK(s.rate(a) == 3.0);
  CHECK(s.rate(b) == 7.0);
  CHECK(s.load(r) == doctest::Approx(10.0));
  // A third flow overfills it: max-min gives 10/3 to each, which 3.0 is under: a keeps 3.0 and
  // the other two share the remaining 7.
  const SolverFlowId c = s.add_flow(path({r}), 7.0);
  s.solve();
  CHECK(s.rate(a) == 3.0);
  CHECK(s.rate(b) == doctest::Approx(3.5));
  CHECK(s.rate(c) == doctest::Approx(3.5));
}

TEST_CASE("incremental solves, with and without a filling, match a solve from scratch after every change") {
  // Random networks changed one class count at a time (starts, ends, count changes), so that
  // solves where every resource around the change fits under its caps (no filling) and solves
  // that refill a component of non-fitting resources both run, on allocations the other kind
  // made. After every change the rates and the loads (kept by deltas) must equal those of a
  // fresh solver given the same classes.
  std::mt19937 rng(21);
  std::uint64_t without_filling = 0, total = 0;
  for (int trial = 0; trial < 40; ++trial) {
    MaxMinSolver s;
    const int num_res = 2 + static_cast<int>(rng() % 8);
    std::vector<double> capacity;
    for (int r = 0; r < num_res; ++r) {
      capacity.push_back(20.0 + static_cast<double>(rng() % 100));
      s.add_resource(capacity.back());
    }
    std::vector<std::vector<ResourceId>> paths;
    std::vector<double> caps;
    const int num_flows = 2 + static_cast<int>(rng() % 20);
    for (int f = 0; f < num_flows; ++f) {
      std::vector<ResourceId> p;
      for (int r = 0; r < num_res; ++r) {
        if (rng() % 3 == 0) p.push_back(static_cast<ResourceId>(r));
      }
      if (p.empty()) p.push_back(static_cast<ResourceId>(rng() % num_res));
      paths.push_back(p);
      caps.push_back(rng() % 8 == 0 ? kUncapped : 0.5 + static_cast<double>(rng() % 12));
      s.add_flow(p, caps.back(), 0);
    }
    for (int step = 0; step < 60; ++step) {
      const auto f = static_cast<SolverFlowId>(rng() % num_flows);
      s.set_count(f, rng() % 3 == 0 ? 0 : static_cast<std::uint32_t>(rng() % 4));
      s.solve();
      MaxMinSolver fresh;
      for (double c : capacity) fresh.add_resource(c);
      for (int g = 0; g < num_flows; ++g) fresh.add_flow(paths[g], caps[g], s.count(static_cast<SolverFlowId>(g)));
      fresh.solve();
      for (SolverFlowId g = 0; g < s.num_flows(); ++g) {
        CHECK(s.rate(g) == doctest::Approx(fresh.rate(g)).epsilon(1e-9));
      }
      for (int r = 0; r < num_res; ++r) {
        const auto id = static_cast<ResourceId>(r);
        CHECK(s.load(id) == doctest::Approx(fresh.load(id)).epsilon(1e-9));
      }
    }
    without_filling += s.solves_without_filling();
    total += s.solves();
  }
  // Both kinds of solve must have run: without a filling and with one.
  CHECK(without_filling > 0);
  CHECK(without_filling < total);
}
