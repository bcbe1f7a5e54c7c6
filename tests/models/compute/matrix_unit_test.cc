#include <doctest/doctest.h>

#include <vector>

#include "models/compute/compute_timing.h"
#include "models/compute/gpu_compute.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"

using namespace tessera;
using namespace tessera::models;
using namespace tessera::models::compute;

namespace {

// Records when each compute job (payload.a = job index) finished.
struct Finish {
  sim::Engine* engine;
  std::vector<sim::Tick> at = std::vector<sim::Tick>(8, 0);
  void on(const sim::Payload& p) { at[p.a] = engine->now(); }
};

// Starts a job on CU 0 at a given time (payload.a = job index, payload.b = flops).
struct Starter {
  GpuCompute* gpu;
  Finish* finish;
  void on(const sim::Payload& p) {
    gpu->compute(0, static_cast<double>(p.b), Dtype::kFp16, sim::bind<&Finish::on>(finish), sim::Payload{p.a, 0});
  }
};

GpuSpec one_cu(double flops_per_clock, double clock_hz) {
  GpuSpec spec;
  spec.compute.num_dies = 1;
  spec.compute.compute_units_per_die = 1;
  spec.compute.workgroup_slots_per_cu = 4;
  spec.compute.clock_hz = clock_hz;
  spec.compute.matrix_flops_per_clock_per_cu.fp16 = flops_per_clock;
  return spec;
}

}  // namespace

TEST_CASE("two jobs sharing one CU's matrix unit each take twice as long (processor sharing)") {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  const GpuSpec spec = one_cu(2048, 2.1e9);
  GpuCompute gpu({engine, stats}, "gpu0", 0, spec);
  Finish finish{&engine};
  const double tile = 2.0 * 256 * 64 * 64;
  gpu.compute(0, tile, Dtype::kFp16, sim::bind<&Finish::on>(&finish), {0, 0});
  gpu.compute(0, tile, Dtype::kFp16, sim::bind<&Finish::on>(&finish), {1, 0});
  engine.run();
  const sim::Tick doubled = compute_ps(2 * tile, Dtype::kFp16, spec.compute);
  CHECK(doubled == 975239);  // ceil(2 * 487619.05..)
  CHECK(finish.at[0] == doubled);
  CHECK(finish.at[1] == doubled);
  CHECK(gpu.matrix_busy_ps() == doubled);
  CHECK(stats.to_json()["gpu0.matrix_busy_ps"]["value"] == doubled);
}

TEST_CASE("a job arriving half-way shares the rest: 1000 + 1000 FLOP at 1 FLOP/ps end at 1500 and 2000") {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  GpuCompute gpu({engine, stats}, "gpu0", 0, one_cu(1000, 1e9));
  Finish finish{&engine};
  Starter starter{&gpu, &finish};
  engine.schedule(0, sim::bind<&Starter::on>(&starter), {0, 1000});
  engine.schedule(500, sim::bind<&Starter::on>(&starter), {1, 1000});
  engine.schedule(5000, sim::bind<&Starter::on>(&starter), {2, 300});  // alone again: 300 ps
  engine.run();
  CHECK(finish.at[0] == 1500);
  CHECK(finish.at[1] == 2000);
  CHECK(finish.at[2] == 5300);
  CHECK(gpu.matrix_busy_ps() == 2300);
}
