#include <doctest/doctest.h>

#include "models/compute/gpu_compute.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"
#include "test_bodies.h"

using namespace tessera;
using namespace tessera::models;
using namespace tessera::models::compute;
using testing::FixedBody;

namespace {

struct Gpu {
  explicit Gpu(const GpuSpec& spec) : gpu({engine, stats}, "gpu0", 0, spec) {}
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  GpuCompute gpu;
};

GpuSpec small_gpu(std::uint32_t dies, std::uint32_t cus_per_die, std::uint32_t slots) {
  GpuSpec spec;
  spec.compute.num_dies = dies;
  spec.compute.compute_units_per_die = cus_per_die;
  spec.compute.workgroup_slots_per_cu = slots;
  return spec;
}

}  // namespace

TEST_CASE("16 workgroups over 8 dies, chunk 1: workgroup i lands on die i mod 8, least-loaded CU first") {
  Gpu g(GpuSpec{});  // MI300X: 8 x 38 CUs
  FixedBody body(g.engine, g.gpu, 16, 1000);
  g.gpu.launch({"k", 0, 16, &body, {}, {}, 0, {}});
  g.engine.run();
  for (std::uint32_t i = 0; i < 16; ++i) {
    CAPTURE(i);
    CHECK(body.runs[i].die == i % 8);
    // The second workgroup of a die goes to the next CU: the first is busier.
    CHECK(body.runs[i].cu == (i % 8) * 38 + i / 8);
  }
  CHECK(g.gpu.workgroups_dispatched() == 16);
}

TEST_CASE("chunk 2: workgroup i lands on die (i / 2) mod 8") {
  GpuSpec spec;
  spec.dispatch.chunk = 2;
  Gpu g(spec);
  FixedBody body(g.engine, g.gpu, 16, 1000);
  g.gpu.launch({"k", 0, 16, &body, {}, {}, 0, {}});
  g.engine.run();
  for (std::uint32_t i = 0; i < 16; ++i) {
    CAPTURE(i);
    CHECK(body.runs[i].die == (i / 2) % 8);
  }
}

TEST_CASE("launch latency delays the first workgroup start exactly, end = last workgroup end + teardown") {
  GpuSpec spec;
  spec.dispatch.kernel_launch_latency_ps = 5000;
  spec.dispatch.kernel_teardown_ps = 700;
  Gpu g(spec);
  FixedBody body(g.engine, g.gpu, 4, 1000);
  const KernelId id = g.gpu.launch({"k", 0, 4, &body, {}, {}, 0, {}});
  g.engine.run();
  const KernelRecord& r = g.gpu.kernel(id);
  CHECK(r.launch_ps == 0);
  CHECK(r.first_workgroup_start_ps == 5000);
  CHECK(body.runs[0].start_ps == 5000);
  CHECK(r.last_workgroup_end_ps == 6000);
  CHECK(r.completion_ps == 6700);
  CHECK(r.completed);
}

TEST_CASE("dispatches on one die are serialised, dies dispatch in parallel") {
  GpuSpec spec = small_gpu(2, 4, 4);
  spec.dispatch.workgroup_dispatch_ps = 10;
  spec.dispatch.kernel_launch_latency_ps = 100;
  Gpu g(spec);
  FixedBody body(g.engine, g.gpu, 8, 1000);
  g.gpu.launch({"k", 0, 8, &body, {}, {}, 0, {}});
  g.engine.run();
  for (std::uint32_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    // The k-th workgroup of a die (k = i / 2) starts after k + 1 dispatches.
    CHECK(body.runs[i].start_ps == 100 + (i / 2 + 1) * 10);
  }
}

TEST_CASE("with slots exhausted, workgroups wait in order and start when slots free") {
  GpuSpec spec = small_gpu(1, 2, 1);
  spec.dispatch.kernel_teardown_ps = 7;
  Gpu g(spec);
  FixedBody body(g.engine, g.gpu, 5, 100);
  const KernelId id = g.gpu.launch({"k", 0, 5, &body, {}, {}, 0, {}});
  g.engine.run();
  const sim::Tick starts[] = {0, 0, 100, 100, 200};
  const std::uint32_t cus[] = {0, 1, 0, 1, 0};
  for (std::uint32_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(body.runs[i].start_ps == starts[i]);
    CHECK(body.runs[i].cu == cus[i]);
  }
  CHECK(g.gpu.kernel(id).last_workgroup_end_ps == 300);
  CHECK(g.gpu.kernel(id).completion_ps == 307);
  // CU 0 held workgroups over [0, 300), CU 1 over [0, 200).
  CHECK(g.gpu.cu_occupied_ps() == 500);
  CHECK(g.stats.to_json()["gpu0.cu_occupied_ps"]["value"] == 500);
}

TEST_CASE("a blocked workgroup is not overtaken on its die, but other dies go on") {
  // Die 0 has 1 slot; die 1 has 4. Workgroups 0, 2, 4 go to die 0 and run one at a time;
  // 1, 3, 5 to die 1 all start at once.
  GpuSpec spec = small_gpu(2, 1, 1);
  Gpu g(spec);
  FixedBody body(g.engine, g.gpu, 6, 100);
  const std::vector<std::uint32_t> cus{0, 1};
  g.gpu.launch({"k", 0, 6, &body, CuPartition::of(spec.compute, cus), {}, 0, {}});
  g.engine.run();
  CHECK(body.runs[0].start_ps == 0);
  CHECK(body.runs[2].start_ps == 100);
  CHECK(body.runs[4].start_ps == 200);
  CHECK(body.runs[1].start_ps == 0);
  CHECK(body.runs[3].start_ps == 100);
  CHECK(body.runs[5].start_ps == 200);
}

TEST_CASE("a partition on one die takes every workgroup there") {
  GpuSpec spec;
  Gpu g(spec);
  FixedBody body(g.engine, g.gpu, 6, 100);
  const std::vector<std::uint32_t> cus{38, 39};  // die 1 only
  g.gpu.launch({"k", 0, 6, &body, CuPartition::of(spec.compute, cus), {}, 0, {}});
  g.engine.run();
  for (const auto& run : body.runs) {
    CHECK(run.die == 1);
    CHECK((run.cu == 38 || run.cu == 39));
  }
}

TEST_CASE("workgroups that compute share their CU's matrix unit") {
  GpuSpec spec = small_gpu(1, 1, 2);
  Gpu g(spec);
  const double tile = 2.0 * 256 * 64 * 64;
  FixedBody body(g.engine, g.gpu, 2, 0, tile);
  const KernelId id = g.gpu.launch({"k", 0, 2, &body, {}, {}, 0, {}});
  g.engine.run();
  const sim::Tick doubled = compute_ps(2 * tile, Dtype::kFp16, spec.compute);
  CHECK(body.runs[0].end_ps == doubled);
  CHECK(body.runs[1].end_ps == doubled);
  CHECK(g.gpu.kernel(id).last_workgroup_end_ps == doubled);
}

TEST_CASE("kernel_efficiency: a named kernel's matrix work runs at the efficiency of its CU's occupancy") {
  // One die of one CU, 2048 FLOP/clk at 1 GHz = 2048 FLOP/ns at efficiency 1 (the default).
  GpuSpec spec = small_gpu(1, 1, 4);
  spec.compute.clock_hz = 1e9;
  spec.compute.kernel_efficiency = {{"slow", "fp16", {0.5, 0.8}}, {"slow", "bf16", {0.1}}};
  const double flops = 2048.0 * 1000;  // 1000 ns alone at efficiency 1
  {
    Gpu g(spec);  // alone on the CU: efficiency[0] = 0.5 -> 2000 ns
    FixedBody body(g.engine, g.gpu, 1, 0, flops);
    g.gpu.launch({"slow", 0, 1, &body, {}, {}, 0, {}});
    g.engine.run();
    CHECK(body.runs[0].end_ps == 2'000'000);
  }
  {
    Gpu g(spec);  // two resident (both placed before either starts): 0.8 each -> 1250 ns alone, shared: 2500 ns
    FixedBody body(g.engine, g.gpu, 2, 0, flops);
    g.gpu.launch({"slow", 0, 2, &body, {}, {}, 0, {}});
    g.engine.run();
    CHECK(body.runs[0].end_ps == 2'500'000);
    CHECK(body.runs[1].end_ps == 2'500'000);
  }
  {
    Gpu g(spec);  // three resident: the last entry (0.8) holds beyond the list -> 3 x 1250 ns shared
    FixedBody body(g.engine, g.gpu, 3, 0, flops);
    g.gpu.launch({"slow", 0, 3, &body, {}, {}, 0, {}});
    g.engine.run();
    for (const auto& run : body.runs) CHECK(run.end_ps == 3'750'000);
  }
  {
    Gpu g(spec);  // another kernel name: matrix_efficiency (1)
    FixedBody body(g.engine, g.gpu, 1, 0, flops);
    g.gpu.launch({"fast", 0, 1, &body, {}, {}, 0, {}});
    g.engine.run();
    CHECK(body.runs[0].end_ps == 1'000'000);
  }
  CHECK(kernel_efficiency_of(spec.compute, "slow", Dtype::kBf16)->efficiency[0] == 0.1);
  CHECK(kernel_efficiency_of(spec.compute, "slow", Dtype::kFp8) == nullptr);
  CHECK(efficiency_at(spec.compute, Dtype::kFp16, nullptr, 3) == 1.0);
}

TEST_CASE("pipe demands: bound by the busiest pipe, shared by the CU's workgroups, and a fitted kernel_efficiency wins") {
  // One CU, 2048 FLOP/clk at 1 GHz; shared memory 128 B/clk. 2048 x 1000 FLOP = 1000 matrix cycles; 256,000 bytes =
  // 2000 shared-memory cycles = 2000 ns alone.
  GpuSpec spec = small_gpu(1, 1, 4);
  spec.compute.clock_hz = 1e9;
  spec.compute.pipes.lds_bytes_per_clock = 128;
  spec.compute.kernel_efficiency = {{"fitted", "fp16", {0.5}}};
  const double flops = 2048.0 * 1000;
  const PipeDemand demand{256000, 0, 0, 0};
  {
    Gpu g(spec);
    FixedBody body(g.engine, g.gpu, 1, 0, flops, demand);
    g.gpu.launch({"structural", 0, 1, &body, {}, {}, 0, {}});
    g.engine.run();
    CHECK(body.runs[0].end_ps == 2'000'000);
  }
  {
    Gpu g(spec);  // two on the CU share its busiest pipe: both end at 4000 ns
    FixedBody body(g.engine, g.gpu, 2, 0, flops, demand);
    g.gpu.launch({"structural", 0, 2, &body, {}, {}, 0, {}});
    g.engine.run();
    CHECK(body.runs[0].end_ps == 4'000'000);
    CHECK(body.runs[1].end_ps == 4'000'000);
  }
  {
    Gpu g(spec);  // the kernel's measured inner loop (0.5 -> 2000 ns) is used as it is, demand or not
    FixedBody body(g.engine, g.gpu, 1, 0, flops, PipeDemand{1e9, 0, 0, 0});
    g.gpu.launch({"fitted", 0, 1, &body, {}, {}, 0, {}});
    g.engine.run();
    CHECK(body.runs[0].end_ps == 2'000'000);
  }
  {
    GpuSpec no_pipes = spec;  // a system without pipe rates ignores the demand: 1000 ns at the matrix rate
    no_pipes.compute.pipes = {};
    Gpu g(no_pipes);
    FixedBody body(g.engine, g.gpu, 1, 0, flops, demand);
    g.gpu.launch({"structural", 0, 1, &body, {}, {}, 0, {}});
    g.engine.run();
    CHECK(body.runs[0].end_ps == 1'000'000);
  }
}
