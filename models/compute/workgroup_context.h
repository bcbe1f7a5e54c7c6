#pragma once
// What a running workgroup knows of itself and what it may ask of the GPU: its ids and
// placement, matrix compute on its CU, and done(). Contexts live in a pool of the GPU and are
// reused after done(); a body that needs its context again from an event passes handle() in
// a payload and gets it back with GpuCompute::workgroup(handle).
#include <cstdint>

#include "models/compute/compute_timing.h"
#include "models/compute/cu_pipes.h"
#include "models/compute/kernel.h"
#include "sim/core/handler.h"
#include "sim/core/tick.h"

namespace tessera::models::compute {

class GpuCompute;

class WorkgroupContext {
 public:
  std::uint32_t workgroup_id() const { return workgroup_; }
  std::uint32_t num_workgroups() const { return num_workgroups_; }
  KernelId kernel() const { return kernel_; }
  std::uint32_t gpu() const { return gpu_; }
  std::uint32_t die() const { return die_; }
  std::uint32_t cu() const { return cu_; }
  sim::Tick start_ps() const { return start_ps_; }
  std::uint32_t handle() const { return handle_; }
  GpuCompute& gpu_compute() const { return *owner_; }

  // Runs `flops` of matrix work on this workgroup's CU, sharing the CU's matrix unit with the
  // other resident workgroups; `when_done(payload)` runs when it is finished. With a pipe
  // demand (and pipe rates in the system, and no kernel_efficiency entry for the kernel), the
  // op takes as long as the CU's busiest pipe needs (cu_pipes.h).
  void compute(double flops, Dtype dtype, sim::Handler when_done, sim::Payload payload = {}, const PipeDemand& demand = {});
  // Busy for `ps` without using the CU's units; `when_done(payload)` runs after it.
  void delay(sim::Tick ps, sim::Handler when_done, sim::Payload payload = {});
  // Ends the workgroup: frees its slot. Call exactly once; the context is reused afterwards.
  void done();

 private:
  friend class GpuCompute;
  GpuCompute* owner_ = nullptr;
  KernelId kernel_ = 0;
  std::uint32_t workgroup_ = 0;
  std::uint32_t num_workgroups_ = 0;
  std::uint32_t gpu_ = 0;
  std::uint32_t die_ = 0;
  std::uint32_t cu_ = 0;
  std::uint32_t handle_ = 0;
  sim::Tick start_ps_ = 0;
  bool live_ = false;
};

}  // namespace tessera::models::compute
