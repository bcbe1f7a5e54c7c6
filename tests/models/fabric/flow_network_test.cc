#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "models/fabric/flow_network.h"
#include "models/fabric/latency_bound.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"

using namespace tessera::models::fabric;
using tessera::sim::Engine;
using tessera::sim::Handler;
using tessera::sim::Payload;
using tessera::sim::Tick;
namespace stats = tessera::sim::stats;

namespace {

// One engine, one registry, one network, and a record of when each flow (tag = payload.a)
// completed. Flows can be started later through start_at().
struct Fixture {
  Engine engine;
  stats::StatRegistry registry;
  FlowNetwork net{tessera::sim::Context{engine, registry}, "fabric"};
  std::vector<Tick> done_at;
  std::vector<std::uint64_t> done_order;  // tags in the order their completions ran

  struct Pending {
    RouteId route;
    std::uint64_t bytes;
    std::uint64_t tag;
  };
  std::vector<Pending> pending;

  ResourceId link(const char* name, double bw, Tick latency = 0) { return net.add_resource({name, bw, latency}); }

  void on_done(const Payload& p) {
    if (done_at.size() <= p.a) done_at.resize(p.a + 1, 0);
    done_at[p.a] = engine.now();
    done_order.push_back(p.a);
  }
  Handler done() { return tessera::sim::bind<&Fixture::on_done>(this); }

  void start(RouteId route, std::uint64_t bytes, std::uint64_t tag) { net.start_flow(route, bytes, done(), {tag, 0}); }

  void on_start(const Payload& p) {
    const Pending& s = pending[p.a];
    start(s.route, s.bytes, s.tag);
  }
  void start_at(Tick when, RouteId route, std::uint64_t bytes, std::uint64_t tag) {
    pending.push_back({route, bytes, tag});
    engine.schedule_at(when, tessera::sim::bind<&Fixture::on_start>(this), {pending.size() - 1, 0});
  }
};

// Seconds -> ps for exact binary-friendly values.
constexpr double kBw = 1e11;  // 100 GB/s: 1e6 bytes take exactly 1e7 ps

}  // namespace

TEST_CASE("one flow alone: bytes / bandwidth + latency") {
  Fixture f;
  const ResourceId l = f.link("l", kBw, 1'500);
  const RouteId r = f.net.add_route(std::vector<ResourceId>{l});
  f.start(r, 1'000'000, 0);
  f.engine.run();
  CHECK(f.done_at[0] == 10'000'000 + 1'500);
  CHECK(f.net.bytes_carried(l) == 1'000'000);
  CHECK(f.net.active_flows() == 0);
  CHECK(f.registry.contains("fabric.l.bytes_carried"));
}

TEST_CASE("N equal flows share a link 1/N each and finish together") {
  Fixture f;
  const ResourceId l = f.link("l", kBw, 100);
  const RouteId r = f.net.add_route(std::vector<ResourceId>{l});
  for (std::uint64_t i = 0; i < 4; ++i) f.start(r, 1'000'000, i);
  f.engine.run(tessera::sim::StopConditions{.end_time_ps = 1});
  CHECK(f.net.route_rate(r) == doctest::Approx(kBw / 4));
  f.engine.run();
  for (std::uint64_t i = 0; i < 4; ++i) CHECK(f.done_at[i] == 40'000'000 + 100);
}

TEST_CASE("staggered starts follow the piecewise analytic result") {
  // A (1e6 B) alone from 0 to 5e6 ps: 5e5 B done. Then A and B share 5e10 B/s: A's last 5e5 B
  // take 1e7 ps (A drains at 1.5e7); B has 5e5 B left, alone again: 5e6 ps more (2e7).
  Fixture f;
  const ResourceId l = f.link("l", kBw, 0);
  const RouteId r = f.net.add_route(std::vector<ResourceId>{l});
  f.start(r, 1'000'000, 0);
  f.start_at(5'000'000, r, 1'000'000, 1);
  f.engine.run();
  CHECK(f.done_at[0] == 15'000'000);
  CHECK(f.done_at[1] == 20'000'000);
}

TEST_CASE("mixed bottlenecks: the three-link example in time") {
  // L1 = 1e10, L2 = 4e9: A (L1+L2) = 2e9, B (L1) = 8e9, C (L2) = 2e9. 8e6 B each: B drains at
  // 1e9 ps; A and C stay limited by L2 and drain at 4e9 ps.
  Fixture f;
  const ResourceId l1 = f.link("l1", 1e10);
  const ResourceId l2 = f.link("l2", 4e9);
  const RouteId a = f.net.add_route(std::vector<ResourceId>{l1, l2});
  const RouteId b = f.net.add_route(std::vector<ResourceId>{l1});
  const RouteId c = f.net.add_route(std::vector<ResourceId>{l2});
  f.start(a, 8'000'000, 0);
  f.start(b, 8'000'000, 1);
  f.start(c, 8'000'000, 2);
  f.engine.run(tessera::sim::StopConditions{.end_time_ps = 1});
  CHECK(f.net.route_rate(a) == doctest::Approx(2e9));
  CHECK(f.net.route_rate(b) == doctest::Approx(8e9));
  CHECK(f.net.route_rate(c) == doctest::Approx(2e9));
  f.engine.run();
  CHECK(f.done_at[1] == 1'000'000'000);
  CHECK(f.done_at[0] == 4'000'000'000);
  CHECK(f.done_at[2] == 4'000'000'000);
}

TEST_CASE("a capped flow takes its cap, the others share the remainder") {
  // Link 1e11; one flow capped at 1e10, two uncapped at 4.5e10 each. Sizes make all drain at 1e8 ps.
  Fixture f;
  const ResourceId l = f.link("l", kBw, 0);
  f.net.start_flow(std::vector<ResourceId>{l}, 1'000'000, 1e10, f.done(), {0, 0});
  f.net.start_flow(std::vector<ResourceId>{l}, 4'500'000, kUncapped, f.done(), {1, 0});
  f.net.start_flow(std::vector<ResourceId>{l}, 4'500'000, kUncapped, f.done(), {2, 0});
  f.engine.run();
  CHECK(f.done_at[0] == 100'000'000);
  CHECK(f.done_at[1] == 100'000'000);
  CHECK(f.done_at[2] == 100'000'000);
}

TEST_CASE("unloaded latency of a path is the sum of its hops") {
  Fixture f;
  const ResourceId h = f.link("hbm", 5.3e12, 400'000);
  const ResourceId p = f.link("port", 2e12, 50'000);
  const ResourceId x = f.link("xgmi", 64e9, 700'000);
  const std::vector<ResourceId> path{h, p, x};
  CHECK(f.net.path_latency_ps(path) == 1'150'000);
  f.net.start_flow(path, 0, kUncapped, f.done(), {0, 0});
  // One byte: the latency plus its serialisation on the slowest hop, rounded up.
  f.net.start_flow(path, 1, kUncapped, f.done(), {1, 0});
  f.engine.run();
  CHECK(f.done_at[0] == 1'150'000);
  CHECK(f.done_at[1] == 1'150'016);  // ceil(1 B / 64 GB/s) = 16 ps
}

TEST_CASE("one byte at an enormous rate finishes, 1 ps late at most") {
  Fixture f;
  const ResourceId l = f.link("l", 1e30, 0);
  f.net.start_flow(std::vector<ResourceId>{l}, 1, kUncapped, f.done(), {0, 0});
  const auto result = f.engine.run();
  CHECK(f.done_at[0] == 1);
  CHECK(result.events < 10);
}

TEST_CASE("Little's law cap: a latency-bound flow moves window / RTT") {
  // W = 1e5 B, RTT = 1 us: 1e11 B/s, below the 4e11 link: 1e8 B take 1e9 ps (+ latency).
  Fixture f;
  const ResourceId l = f.link("l", 4e11, 500'000);
  const double cap = latency_bound_rate(1e5, 1'000'000);
  f.net.start_flow(std::vector<ResourceId>{l}, 100'000'000, cap, f.done(), {0, 0});
  // Above the link rate the link wins: W = 1e6 B over 1 us wants 1e12, gets 4e11.
  const ResourceId l2 = f.link("l2", 4e11, 500'000);
  f.net.start_flow(std::vector<ResourceId>{l2}, 400'000'000, latency_bound_rate(1e6, 1'000'000), f.done(), {1, 0});
  f.engine.run();
  CHECK(f.done_at[0] == 1'000'000'000 + 500'000);
  CHECK(f.done_at[1] == 1'000'000'000 + 500'000);
}

TEST_CASE("utilisation x bandwidth integrated over time equals bytes carried") {
  Fixture f;
  const ResourceId l1 = f.link("l1", 1e10, 1000);
  const ResourceId l2 = f.link("l2", 3e9, 2000);
  const RouteId a = f.net.add_route(std::vector<ResourceId>{l1, l2});
  const RouteId b = f.net.add_route(std::vector<ResourceId>{l1});
  const RouteId c = f.net.add_route(std::vector<ResourceId>{l2}, 1e9);
  f.start(a, 3'000'000, 0);
  f.start_at(123'457, b, 7'777'777, 1);
  f.start_at(999'999, c, 1'234'567, 2);
  f.start_at(2'000'000'000, b, 5'000'000, 3);  // after an idle gap
  const Tick end = f.engine.run().final_time_ps;
  for (ResourceId r : {l1, l2}) {
    const double integral = f.net.busy_ps(r, end) * f.net.resource(r).bandwidth_bytes_per_s / 1e12;
    CHECK(integral == doctest::Approx(static_cast<double>(f.net.bytes_carried(r))).epsilon(1e-9));
    const auto& series = f.net.utilisation_series(r);
    REQUIRE(!series.empty());
    CHECK(series.back().utilisation_frac == 0.0);
    for (std::size_t i = 1; i < series.size(); ++i) {  // compressed: strictly later, always changing
      CHECK(series[i].time_ps > series[i - 1].time_ps);
      CHECK(series[i].utilisation_frac != series[i - 1].utilisation_frac);
    }
  }
  CHECK(f.net.bytes_carried(l1) == 3'000'000 + 7'777'777 + 5'000'000);
  CHECK(f.net.bytes_carried(l2) == 3'000'000 + 1'234'567);
}

namespace {

// A random workload: flows of random sizes over random paths of a small mesh, starting at
// random times. Returns completion times by tag.
std::vector<Tick> random_run(std::uint32_t seed, std::vector<Tick>* lower_bounds = nullptr) {
  Fixture f;
  std::mt19937_64 rng(seed);
  std::vector<ResourceId> res;
  for (const char* name : {"r0", "r1", "r2", "r3", "r4", "r5"}) {
    res.push_back(f.link(name, 1e9 * static_cast<double>(1 + rng() % 50), rng() % 5000));
  }
  const int n = 200;
  for (int i = 0; i < n; ++i) {
    std::vector<ResourceId> path;
    for (ResourceId r : res) {
      if (rng() % 3 == 0) path.push_back(r);
    }
    if (path.empty()) path.push_back(res[rng() % res.size()]);
    const double cap = rng() % 4 == 0 ? 1e8 * static_cast<double>(1 + rng() % 100) : kUncapped;
    const std::uint64_t bytes = 1 + rng() % 10'000'000;
    const Tick start = rng() % 100'000'000;
    const RouteId route = f.net.add_route(path, cap);
    f.start_at(start, route, bytes, static_cast<std::uint64_t>(i));
    if (lower_bounds) {
      double min_bw = cap;
      for (ResourceId r : path) min_bw = std::min(min_bw, f.net.resource(r).bandwidth_bytes_per_s);
      const auto serial = static_cast<Tick>(std::ceil(static_cast<double>(bytes) * 1e12 / min_bw));
      lower_bounds->push_back(start + serial + f.net.route_latency_ps(route));
    }
  }
  f.engine.run();
  CHECK(f.net.flows_completed() == static_cast<std::uint64_t>(n));
  CHECK(f.net.active_flows() == 0);
  return f.done_at;
}

}  // namespace

TEST_CASE("determinism: the same flow starts give identical completion times") {
  const auto first = random_run(42);
  const auto second = random_run(42);
  CHECK(first.size() == 200);
  CHECK(first == second);
  CHECK(first != random_run(43));
}

TEST_CASE("no flow beats bytes / min(bandwidth on its path) + latency") {
  std::vector<Tick> bounds;
  const auto done = random_run(9, &bounds);
  REQUIRE(done.size() == bounds.size());
  for (std::size_t i = 0; i < done.size(); ++i) CHECK(done[i] >= bounds[i]);
}

TEST_CASE("traffic on disjoint resources does not move a flow's completion by a picosecond") {
  // A long flow at rates that do not divide its bytes evenly, alone and then beside 4000 flows
  // of another link that start and drain all through its life: its route is advanced only when
  // its own rate or flows change, so its float arithmetic, and its completion, are the same.
  // (Advancing every route at every drain, the served count of a terabyte flow picks up rounding
  // of ~1e-4 bytes per event, enough to move some completions across a picosecond.)
  const auto run = [](std::uint64_t bytes, bool busy_neighbour) {
    Fixture f;
    const ResourceId a = f.link("a", 3e10);
    const ResourceId b = f.link("b", 7e10);
    const RouteId on_a = f.net.add_route(std::vector<ResourceId>{a});
    const RouteId on_b = f.net.add_route(std::vector<ResourceId>{b});
    f.start_at(0, on_a, bytes, 0);
    f.start_at(5'000'000'000, on_a, 123'457'000, 1);  // shares a for a while: rate changes mid-flow
    if (busy_neighbour) {
      for (std::uint64_t i = 0; i < 4000; ++i) f.start_at(i * 8'300'000'000, on_b, 1'000'003 + 17 * i, 2 + i);
    }
    f.engine.run();
    return std::pair{f.done_at[0], f.done_at[1]};
  };
  for (std::uint64_t k = 0; k < 16; ++k) {
    const std::uint64_t bytes = 1'000'000'000'000 + 7919 * k;
    const auto alone = run(bytes, false);
    CHECK(alone.first > 33'000'000'000'000);
    CHECK_MESSAGE(run(bytes, true) == alone, "bytes ", bytes);
  }
}

TEST_CASE("flows draining in the same picosecond complete in the order they started") {
  // Two routes over two equal links, the same bytes at the same time: both drain at 1e7 ps. The
  // flow on the route created second started first, so it completes first.
  Fixture f;
  const RouteId first_route = f.net.add_route(std::vector<ResourceId>{f.link("a", kBw)});
  const RouteId second_route = f.net.add_route(std::vector<ResourceId>{f.link("b", kBw)});
  f.start(second_route, 1'000'000, 7);
  f.start(first_route, 1'000'000, 3);
  f.engine.run();
  REQUIRE(f.done_order.size() == 2);
  CHECK(f.done_at[7] == 10'000'000);
  CHECK(f.done_at[3] == 10'000'000);
  CHECK(f.done_order == std::vector<std::uint64_t>{7, 3});
}
