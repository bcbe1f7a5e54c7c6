#pragma once
// Workgroup programs for the compute tests: each workgroup holds its slot for a fixed time
// (or computes a fixed number of FLOPs) and records where and when it ran.
#include <vector>

#include "models/compute/gpu_compute.h"
#include "sim/core/engine.h"

namespace tessera::models::compute::testing {

struct WorkgroupRun {
  std::uint32_t die = 0;
  std::uint32_t cu = 0;
  sim::Tick start_ps = 0;
  sim::Tick end_ps = 0;
  bool ran = false;
};

class FixedBody : public WorkgroupBody {
 public:
  // Holds the slot for `hold_ps`, then computes `flops` of fp16 (if any) with `demand` on the
  // CU's other pipes, then ends.
  FixedBody(sim::Engine& engine, GpuCompute& gpu, std::uint32_t num_workgroups, sim::Tick hold_ps, double flops = 0,
            PipeDemand demand = {})
      : engine_(engine), gpu_(gpu), hold_ps_(hold_ps), flops_(flops), demand_(demand), runs(num_workgroups) {}

  void start(WorkgroupContext& wg) override {
    WorkgroupRun& run = runs.at(wg.workgroup_id());
    run = {wg.die(), wg.cu(), wg.start_ps(), 0, true};
    if (flops_ > 0) {
      wg.compute(flops_, Dtype::kFp16, sim::bind<&FixedBody::on_held>(this), {wg.handle(), 0}, demand_);
    } else {
      engine_.schedule(hold_ps_, sim::bind<&FixedBody::on_held>(this), {wg.handle(), 0});
    }
  }

 private:
  void on_held(const sim::Payload& p) {
    WorkgroupContext& wg = gpu_.workgroup(static_cast<std::uint32_t>(p.a));
    runs.at(wg.workgroup_id()).end_ps = engine_.now();
    wg.done();
  }

  sim::Engine& engine_;
  GpuCompute& gpu_;
  sim::Tick hold_ps_;
  double flops_;
  PipeDemand demand_;

 public:
  std::vector<WorkgroupRun> runs;
};

}  // namespace tessera::models::compute::testing
