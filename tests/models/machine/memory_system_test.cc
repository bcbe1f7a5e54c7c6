// The memory system against closed-form expectations: each access alone on an idle machine,
// where the fluid model must give exactly bytes / rate + latency (to a few ps of rounding).
#include <doctest/doctest.h>

#include <cmath>
#include <optional>

#include "models/machine/machine.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"
#include "tests/support/test_systems.h"

using tessera::models::SystemSpec;
using tessera::models::machine::AccessKind;
using tessera::models::machine::Machine;
using tessera::models::machine::MemoryAccess;
namespace sim = tessera::sim;

namespace {

struct Rig {
  explicit Rig(const SystemSpec& spec) : machine(sim::Context{engine, stats}, spec) {}

  // Runs one access to completion and returns its duration in ps.
  sim::Tick time(const MemoryAccess& a) {
    const sim::Tick start = engine.now();
    done.reset();
    machine.memory().access(a, sim::bind<&Rig::on_done>(this));
    engine.run();
    REQUIRE(done.has_value());
    return *done - start;
  }
  void on_done(const sim::Payload&) { done = engine.now(); }
  std::uint64_t carried(const char* resource) {
    return machine.network().bytes_carried(machine.network_id(*machine.topology().find_resource(resource)));
  }

  sim::Engine engine;
  sim::stats::StatRegistry stats;
  Machine machine;
  std::optional<sim::Tick> done;
};

double port_rate(const SystemSpec& s) { return s.gpu.fabric.cu_port_bytes_per_clock * s.gpu.compute.clock_hz; }
sim::Tick at_rate(double bytes, double rate) { return static_cast<sim::Tick>(std::ceil(bytes / rate * 1e12)); }
constexpr std::uint64_t kMiB = 1 << 20;

}  // namespace

TEST_CASE("a cold local load streams from HBM at the CU port rate, plus the HBM latency") {
  const SystemSpec s = tessera::test::mi300x(1);
  Rig rig(s);
  // W / R = 64 KiB / 428 ns = 153 GB/s is above the port's 64 B x 2.1 GHz = 134.4 GB/s: port-bound.
  const sim::Tick t = rig.time({AccessKind::kLoad, 0, 0, 0, 0, kMiB});
  CHECK(t == doctest::Approx(static_cast<double>(at_rate(kMiB, port_rate(s)) + 428'000)).epsilon(1e-6));
  CHECK(rig.carried("gpu[0].hbm") == kMiB);
  CHECK(rig.machine.memory().totals().hbm_read_bytes == kMiB);

  // The same range again: an L2 hit, after the L2 hit latency, no HBM traffic.
  const sim::Tick again = rig.time({AccessKind::kLoad, 0, 0, 0, 0, kMiB});
  CHECK(again == doctest::Approx(static_cast<double>(at_rate(kMiB, port_rate(s)) + s.gpu.memory.l2.hit_latency_ps)).epsilon(1e-6));
  CHECK(rig.carried("gpu[0].hbm") == kMiB);
  CHECK(rig.machine.memory().totals().l2_hit_bytes == kMiB);
}

TEST_CASE("Little's law: a remote load is latency-bound at window / round trip") {
  SystemSpec s = tessera::test::mi300x(2);
  s.interconnect.links_per_gpu = 1;
  Rig rig(s);
  const sim::Tick rtt = rig.machine.memory().load_round_trip_ps(0, 0, 1);
  // HBM 428 ns + xGMI 700 ns each way + IOD hops (die 0 sits on IOD 0, the port to GPU 1 on IOD 1).
  CHECK(rtt == 428'000 + 2 * 700'000 + 2 * 20'000);
  const double window = static_cast<double>(s.gpu.fabric.max_bytes_in_flight_per_workgroup);
  REQUIRE(window / (static_cast<double>(rtt) / 1e12) < port_rate(s));
  // A windowed transfer of B bytes takes B R / W: (1 MiB / 64 KiB) = 16 round trips.
  const sim::Tick t = rig.time({AccessKind::kLoad, 0, 0, 1, 0, kMiB});
  CHECK(static_cast<double>(t) == doctest::Approx(16.0 * static_cast<double>(rtt)).epsilon(1e-6));
  CHECK(rig.carried("gpu[1].xgmi_to[0]") == kMiB);
  CHECK(rig.carried("gpu[0].xgmi_to[1]") == 0);

  // Within one window: the latency back from the peer plus serialisation at the slower of the
  // port and the xGMI link (64 GB/s).
  Rig small(s);
  const sim::Tick t_small = small.time({AccessKind::kLoad, 0, 0, 1, 0, 4096});
  const sim::Tick one_way = small.machine.routes().route(tessera::models::topology::Endpoint::memory(1),
                                                        tessera::models::topology::Endpoint::die(0, 0)).latency_ps;
  CHECK(static_cast<double>(t_small) == doctest::Approx(4096 / 64e9 * 1e12 + static_cast<double>(one_way)).epsilon(1e-6));
}

TEST_CASE("a remote store streams over the link into the owner's HBM") {
  SystemSpec s = tessera::test::mi300x(2);
  s.interconnect.links_per_gpu = 1;
  Rig rig(s);
  const sim::Tick t = rig.time({AccessKind::kStore, 0, 3, 1, 0, 8 * kMiB});
  const sim::Tick latency = rig.machine.routes().die_to_peer_memory(0, 3, 1).latency_ps;
  CHECK(t == doctest::Approx(static_cast<double>(at_rate(8.0 * kMiB, 64e9) + latency)).epsilon(1e-6));
  CHECK(rig.carried("gpu[0].xgmi_to[1]") == 8 * kMiB);
  CHECK(rig.carried("gpu[1].hbm") == 8 * kMiB);
  CHECK(rig.carried("gpu[0].hbm") == 0);
  CHECK(rig.machine.memory().totals().remote_store_bytes == 8 * kMiB);
}

TEST_CASE("a local store stays in the L2 until the kernel-boundary release writes it back") {
  const SystemSpec s = tessera::test::mi300x(1);
  Rig rig(s);
  const sim::Tick t = rig.time({AccessKind::kStore, 0, 2, 0, 0, kMiB});
  CHECK(t == at_rate(kMiB, port_rate(s)));  // into the L2: no latency on the L2 route
  CHECK(rig.carried("gpu[0].hbm") == 0);
  rig.done.reset();
  rig.machine.memory().release_all(0, sim::bind<&Rig::on_done>(&rig));
  rig.engine.run();
  REQUIRE(rig.done.has_value());
  CHECK(rig.carried("gpu[0].hbm") == kMiB);
  CHECK(rig.carried("gpu[0].die[2].link_up") == kMiB);
}

TEST_CASE("concurrent stores over one link share it: N accesses take N times as long") {
  SystemSpec s = tessera::test::mi300x(2);
  s.interconnect.links_per_gpu = 1;
  Rig rig(s);
  int finished = 0;
  struct Counter {
    int* n;
    void hit(const sim::Payload&) { ++*n; }
  } counter{&finished};
  for (std::uint32_t i = 0; i < 4; ++i) {
    rig.machine.memory().access({AccessKind::kStore, 0, i, 1, i * kMiB, kMiB}, sim::bind<&Counter::hit>(&counter));
  }
  rig.engine.run();
  CHECK(finished == 4);
  const sim::Tick latency = rig.machine.routes().die_to_peer_memory(0, 0, 1).latency_ps;
  // Dies 0..3 cross different IOD hops but the same xGMI link: it is the bottleneck.
  CHECK(static_cast<double>(rig.engine.now()) ==
        doctest::Approx(static_cast<double>(at_rate(4.0 * kMiB, 64e9) + latency)).epsilon(1e-3));
}

TEST_CASE("a copy engine transfer crosses the link with the HBM of both ends") {
  SystemSpec s = tessera::test::hopper(2, "direct");
  Rig rig(s);
  rig.machine.memory().dma_copy(0, 0, 1, 0, 64 * kMiB, sim::bind<&Rig::on_done>(&rig));
  rig.engine.run();
  REQUIRE(rig.done.has_value());
  const double link = 18 * 26.562e9;
  const sim::Tick latency = rig.machine.routes()
                                .route(tessera::models::topology::Endpoint::memory(0),
                                       tessera::models::topology::Endpoint::memory(1))
                                .latency_ps;
  CHECK(static_cast<double>(*rig.done) == doctest::Approx(static_cast<double>(at_rate(64.0 * kMiB, link) + latency)).epsilon(1e-6));
  CHECK(rig.carried("gpu[0].hbm") == 64 * kMiB);
  CHECK(rig.carried("gpu[1].hbm") == 64 * kMiB);
}

TEST_CASE("accesses outside the system are rejected") {
  Rig rig(tessera::test::mi300x(1));
  CHECK_THROWS_AS(rig.machine.memory().access({AccessKind::kLoad, 0, 0, 1, 0, 64}, sim::bind<&Rig::on_done>(&rig)),
                  std::out_of_range);
  CHECK_THROWS_AS(rig.machine.memory().access({AccessKind::kLoad, 0, 8, 0, 0, 64}, sim::bind<&Rig::on_done>(&rig)),
                  std::out_of_range);
  CHECK_THROWS_AS(rig.machine.memory().dma_copy(0, 0, 0, 0, 64, sim::bind<&Rig::on_done>(&rig)), std::out_of_range);
}

namespace {

struct TwoLoads {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  Machine machine;
  std::optional<sim::Tick> first, second;
  explicit TwoLoads(const SystemSpec& spec) : machine(sim::Context{engine, stats}, spec) {}
  void on_first(const sim::Payload&) { first = engine.now(); }
  void on_second(const sim::Payload&) { second = engine.now(); }
  // Two workgroups load the same range at once: the first misses, the second hits in the L2.
  void run(std::uint64_t bytes) {
    machine.memory().access({AccessKind::kLoad, 0, 0, 0, 0, bytes}, sim::bind<&TwoLoads::on_first>(this));
    machine.memory().access({AccessKind::kLoad, 0, 0, 0, 0, bytes}, sim::bind<&TwoLoads::on_second>(this));
    engine.run();
    REQUIRE(first.has_value());
    REQUIRE(second.has_value());
  }
};

}  // namespace

TEST_CASE("a hit under a pending L2 fill starts when the fill completes, without hits_wait_for_fills it costs the hit latency") {
  constexpr std::uint64_t kBytes = 8192;  // within one window: the port caps the load
  SystemSpec s = tessera::test::mi300x(1);
  const double transfer = static_cast<double>(at_rate(kBytes, port_rate(s)));
  const double hbm_latency = 428'000;  // the miss's route to HBM (tessera::test::mi300x)
  {
    TwoLoads off(s);
    off.run(kBytes);
    CHECK(static_cast<double>(*off.second) == doctest::Approx(transfer + s.gpu.memory.l2.hit_latency_ps).epsilon(1e-6));
  }
  s.gpu.memory.l2.hits_wait_for_fills = true;
  TwoLoads on(s);
  on.run(kBytes);
  // The miss itself is unchanged: HBM latency plus the transfer.
  CHECK(static_cast<double>(*on.first) == doctest::Approx(transfer + hbm_latency).epsilon(1e-6));
  // The hit's bytes leave the L2 once the fill has completed.
  CHECK(static_cast<double>(*on.second) == doctest::Approx(static_cast<double>(*on.first) + transfer).epsilon(1e-6));
  // Once the fill has completed, a hit costs the hit latency again.
  const sim::Tick start = on.engine.now();
  on.second.reset();
  on.machine.memory().access({AccessKind::kLoad, 0, 0, 0, 0, kBytes}, sim::bind<&TwoLoads::on_second>(&on));
  on.engine.run();
  REQUIRE(on.second.has_value());
  CHECK(static_cast<double>(*on.second - start) == doctest::Approx(transfer + s.gpu.memory.l2.hit_latency_ps).epsilon(1e-6));
}
