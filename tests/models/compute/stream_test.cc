#include <doctest/doctest.h>

#include <vector>

#include "models/compute/gpu_compute.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"
#include "test_bodies.h"

using namespace tessera;
using namespace tessera::models;
using namespace tessera::models::compute;
using testing::FixedBody;

namespace {

// 2 dies x 4 CUs, 1 slot each; launch latency 100, teardown 10, free dispatch.
GpuSpec spec_2x4() {
  GpuSpec spec;
  spec.compute.num_dies = 2;
  spec.compute.compute_units_per_die = 4;
  spec.compute.workgroup_slots_per_cu = 1;
  spec.dispatch.kernel_launch_latency_ps = 100;
  spec.dispatch.kernel_teardown_ps = 10;
  return spec;
}

struct Done {
  sim::Engine* engine;
  std::vector<std::uint64_t> tags;
  void on(const sim::Payload& p) { tags.push_back(p.a); }
};

struct Scenario {
  std::vector<KernelRecord> records;
  std::vector<testing::WorkgroupRun> gemm_runs;
  std::vector<testing::WorkgroupRun> comm_runs;
};

// A 6-CU kernel and a 2-CU kernel on disjoint partitions; streams as given.
Scenario run_pair(std::uint32_t gemm_stream, std::uint32_t comm_stream) {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  const GpuSpec spec = spec_2x4();
  GpuCompute gpu({engine, stats}, "gpu0", 0, spec);
  FixedBody gemm(engine, gpu, 6, 1000);
  FixedBody comm(engine, gpu, 2, 1000);
  gpu.launch({"gemm", gemm_stream, 6, &gemm, CuPartition::per_die(spec.compute, 0, 3), {}, 0, {}});
  gpu.launch({"comm", comm_stream, 2, &comm, CuPartition::per_die(spec.compute, 3, 1), {}, 0, {}});
  engine.run();
  return {gpu.kernels(), gemm.runs, comm.runs};
}

}  // namespace

TEST_CASE("two kernels on two streams on disjoint CU sets run concurrently") {
  const Scenario s = run_pair(0, 1);
  for (const KernelRecord& r : s.records) {
    CAPTURE(r.name);
    CHECK(r.launch_ps == 0);
    CHECK(r.first_workgroup_start_ps == 100);
    CHECK(r.last_workgroup_end_ps == 1100);
    CHECK(r.completion_ps == 1110);
  }
  for (const auto& run : s.gemm_runs) CHECK(run.cu % 4 < 3);
  for (const auto& run : s.comm_runs) CHECK(run.cu % 4 == 3);
}

TEST_CASE("the same two kernels on one stream serialise: launch latency starts at the previous completion") {
  const Scenario s = run_pair(0, 0);
  const KernelRecord& gemm = s.records[0];
  const KernelRecord& comm = s.records[1];
  CHECK(gemm.completion_ps == 1110);
  CHECK(comm.enqueue_ps == 0);
  CHECK(comm.launch_ps == 1110);
  CHECK(comm.first_workgroup_start_ps == 1210);
  CHECK(comm.completion_ps == 2220);
}

TEST_CASE("completion handlers run with the tag and kernel id, an empty kernel costs launch + teardown") {
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  GpuCompute gpu({engine, stats}, "gpu0", 0, spec_2x4());
  Done done{&engine, {}};
  gpu.launch({"empty", 3, 0, nullptr, {}, sim::bind<&Done::on>(&done), 42, {}});
  engine.run();
  REQUIRE(done.tags.size() == 1);
  CHECK(done.tags[0] == 42);
  CHECK(gpu.kernel(0).completion_ps == 110);
  CHECK(gpu.kernel(0).stream == 3);
  CHECK(gpu.idle());
}

TEST_CASE("determinism: the same inputs give the same times") {
  const Scenario a = run_pair(0, 1);
  const Scenario b = run_pair(0, 1);
  REQUIRE(a.records.size() == b.records.size());
  for (std::size_t i = 0; i < a.records.size(); ++i) {
    CHECK(a.records[i].completion_ps == b.records[i].completion_ps);
    CHECK(a.records[i].first_workgroup_start_ps == b.records[i].first_workgroup_start_ps);
  }
  for (std::size_t i = 0; i < a.gemm_runs.size(); ++i) {
    CHECK(a.gemm_runs[i].cu == b.gemm_runs[i].cu);
    CHECK(a.gemm_runs[i].start_ps == b.gemm_runs[i].start_ps);
    CHECK(a.gemm_runs[i].end_ps == b.gemm_runs[i].end_ps);
  }
}
