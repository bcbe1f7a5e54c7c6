// Occupancy from a kernel's footprint (models/compute/occupancy.h): the least of the CU's slots and
// what its registers, shared memory and wave slots hold, each worked out by hand; and the
// dispatcher keeps a kernel's residents per CU at that limit.
#include <doctest/doctest.h>

#include <stdexcept>

#include "models/compute/gpu_compute.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"
#include "test_bodies.h"

using namespace tessera;
using namespace tessera::models;
using namespace tessera::models::compute;
using testing::FixedBody;

namespace {

// An H100/H200 SM (CUDA C++ Programming Guide, compute capability 9.0): 65,536 registers, 228 KiB of shared memory,
// 64 resident warps of 32 lanes, 32 resident blocks.
ComputeSpec hopper() {
  ComputeSpec spec;
  spec.num_dies = 1;
  spec.compute_units_per_die = 2;
  spec.workgroup_slots_per_cu = 32;
  spec.occupancy = {65536, 228 * 1024, 64, 32};
  return spec;
}

}  // namespace

TEST_CASE("each resource can set the occupancy, and no footprint leaves the slots") {
  const ComputeSpec spec = hopper();
  CHECK(occupancy_of(spec, {}).workgroups == 32);
  CHECK(occupancy_of(spec, {}).limit == "slots");
  // The suite's attention kernel at head_dim 128: 8 warps x 32 lanes x 255 registers = 65,280: one per SM.
  const Occupancy attention = occupancy_of(spec, {8, 255, 102912});
  CHECK(attention.workgroups == 1);
  CHECK(attention.limit == "registers");
  // 128 registers x 256 lanes = 32,768: two; 37,888 bytes of shared memory would allow six.
  CHECK(occupancy_of(spec, {8, 128, 37888}).workgroups == 2);
  // Shared memory: 228 KiB / 100 KiB = 2.
  CHECK(occupancy_of(spec, {4, 32, 100 * 1024}) .workgroups == 2);
  CHECK(occupancy_of(spec, {4, 32, 100 * 1024}).limit == "lds");
  // Waves: 64 / 16 = 4 (registers allow 65536 / (16 x 32 x 32) = 4 too: the first limit found stays).
  CHECK(occupancy_of(spec, {16, 16, 0}).workgroups == 4);
  CHECK(occupancy_of(spec, {16, 16, 0}).limit == "waves");
  // Registers per lane without waves say nothing.
  CHECK(occupancy_of(spec, {0, 255, 0}).workgroups == 32);
  // A CU without capacities limits nothing.
  ComputeSpec open = spec;
  open.occupancy = {};
  CHECK(occupancy_of(open, {8, 255, 1 << 30}).workgroups == 32);
  // Too big: nothing fits.
  const Occupancy none = occupancy_of(spec, {32, 255, 0});
  CHECK(none.workgroups == 0);
  CHECK(none.limit == "registers");
}

TEST_CASE("the dispatcher holds a kernel at its occupancy, and a workgroup that fits no CU fails the launch") {
  GpuSpec gpu;
  gpu.compute = hopper();
  sim::Engine engine;
  sim::stats::StatRegistry stats;
  GpuCompute compute({engine, stats}, "gpu0", 0, gpu);
  // Four workgroups of one register-filling kernel on two SMs, each held 1000 ps: two at a time, so the last two
  // start when the first two end.
  FixedBody body(engine, compute, 4, 1000);
  KernelLaunch launch{"attention", 0, 4, &body, {}, {}, 0, {}};
  launch.footprint = {8, 255, 0};
  compute.launch(std::move(launch));
  engine.run();
  CHECK(body.runs[0].start_ps == body.runs[1].start_ps);
  CHECK(body.runs[2].start_ps >= body.runs[0].end_ps);
  CHECK(body.runs[3].start_ps >= body.runs[1].end_ps);
  CHECK(body.runs[0].cu != body.runs[1].cu);

  KernelLaunch huge{"huge", 0, 1, &body, {}, {}, 0, {}};
  huge.footprint = {8, 0, 300 * 1024};
  CHECK_THROWS_WITH_AS(compute.launch(std::move(huge)), doctest::Contains("does not fit a CU's lds"), std::invalid_argument);
}
