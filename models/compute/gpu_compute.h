#pragma once
// The compute side of one GPU: CUs grouped by die with workgroup slots, one matrix unit per
// CU, one workgroup dispatcher per die, and streams that order kernels.
//
// Streams. Kernels on one stream run one after the other: a kernel's launch latency
// (kernel_launch_latency_ps) starts at the later of its enqueue time and the completion of
// the previous kernel of its stream, so back-to-back dependent kernels are separated by
// teardown + launch latency (the kernel-launch-overhead tax; a few us on real GPUs,
// calibrated by the launch-latency microbenchmark). No pipelining of the next launch under
// the running kernel: a stream is a barrier. Kernels on different streams run concurrently,
// each on its CU partition.
//
// Dispatch. When the launch latency has passed, workgroup i goes to die position
// (i / chunk) mod D (dispatch_order.h) and waits in that die's in-order queue for the kernel.
// Each die has one dispatcher: a dispatch takes workgroup_dispatch_ps and dispatches on one
// die are serialised (dies dispatch in parallel). The dispatcher puts the workgroup on the
// least-loaded CU of the die within the kernel's partition that has a free slot (lowest
// index on ties) and the workgroup starts when its dispatch ends. When the kernel has no
// free slot on that die, its workgroups for that die wait, in order: a later workgroup of
// the same kernel never overtakes an earlier one on the same die (hardware dispatches in
// order); workgroups bound to other dies are not held up (each die dispatches its own
// share). Kernels of other streams that share a die take turns at its dispatcher (round
// robin over kernels that can place a workgroup; or, with dispatch_oldest_first(), the kernel
// launched first that can place one, as a dataflow schedule needs so that workgroups waiting for
// data never hold every slot their producers need). A freed slot restarts dispatch on its die.
// A kernel completes kernel_teardown_ps after its last workgroup ends.
//
// Statistics (named <component>.<stat>): workgroups_dispatched, kernels_completed (count),
// matrix_flops (count), cu_occupied_ps (CU-ps with >= 1 resident workgroup, added when a CU
// empties), matrix_busy_ps (CU-ps with >= 1 matrix job, added when a unit empties), and
// kernel_time_ps (accumulator: launch to completion). Per-kernel times: kernels().
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "models/compute/compute_timing.h"
#include "models/compute/cu_array.h"
#include "models/compute/cu_partition.h"
#include "models/compute/dispatch_order.h"
#include "models/compute/kernel.h"
#include "models/compute/matrix_unit.h"
#include "models/compute/workgroup_context.h"
#include "models/system/system_spec.h"
#include "sim/component/component.h"

namespace tessera::models::compute {

class GpuCompute : public sim::Component {
 public:
  GpuCompute(sim::Context context, std::string name, std::uint32_t gpu, const GpuSpec& spec);

  // Enqueues a kernel on its stream at now(); returns its id (index into kernels()).
  KernelId launch(KernelLaunch launch);

  // Kernels of different streams sharing a die dispatch oldest first instead of round robin.
  void dispatch_oldest_first() { oldest_first_ = true; }

  // The end-of-kernel release of kernel `id` (KernelLaunch::end_of_kernel) has finished.
  void end_of_kernel_done(KernelId id);

  // Matrix work on CU `cu`, shared with the other jobs of that CU (see MatrixUnit).
  void compute(std::uint32_t cu, double flops, Dtype dtype, sim::Handler when_done, sim::Payload payload = {});

  // `when_done(payload)` after `ps`: a workgroup busy for a fixed time that uses no unit of the
  // GPU (a library kernel's fixed cost). Throws sim::TimeRangeError past the end of time.
  void delay(sim::Tick ps, sim::Handler when_done, sim::Payload payload = {});

  // The live workgroup with this handle (WorkgroupContext::handle()).
  WorkgroupContext& workgroup(std::uint32_t handle);

  const std::vector<KernelRecord>& kernels() const { return records_; }
  const KernelRecord& kernel(KernelId id) const { return records_.at(id); }
  const CuArray& cus() const { return cus_; }
  const GpuSpec& spec() const { return spec_; }
  std::uint32_t gpu() const { return gpu_; }
  CuPartition all_cus() const { return CuPartition::all(spec_.compute); }

  std::uint64_t workgroups_dispatched() const { return workgroups_dispatched_->value(); }
  // Up to now(), including CUs still busy.
  sim::Tick cu_occupied_ps() const { return cus_.occupied_cu_ps(now()); }
  sim::Tick matrix_busy_ps() const;
  // True when no kernel is queued or running.
  bool idle() const { return running_kernels_ == 0; }

 private:
  friend class WorkgroupContext;

  struct KernelState {
    KernelLaunch launch;
    CuPartition partition;
    std::vector<std::uint64_t> next_k;  // per die position: index k of the next workgroup to dispatch
    std::uint32_t finished = 0;
    bool started = false;
    // Per Dtype: the kernel's kernel_efficiency entry (nullptr: matrix_efficiency), found at launch.
    std::array<const KernelEfficiency*, kNumDtypes> efficiency{};
    std::uint32_t max_resident_per_cu = 0;  // occupancy_of(spec, footprint), found at launch
  };
  struct Stream {
    std::deque<KernelId> queue;
    bool busy = false;
  };
  struct DieDispatcher {
    std::vector<KernelId> kernels;  // kernels with workgroups still to dispatch on this die
    std::size_t next = 0;           // round-robin position among them
    bool busy = false;
  };

  // A workgroup of `kernel` computes: at the kernel's efficiency for the CU's occupancy now, or,
  // without a kernel_efficiency entry, bound by the CU's busiest pipe when the op gives its demand.
  void compute_for(KernelId kernel, std::uint32_t cu, double flops, Dtype dtype, const PipeDemand& demand,
                   sim::Handler when_done, sim::Payload payload);
  // compute and compute_for: their argument checks, then the queueing of `exact_ps` of work on `cu`.
  void check_compute(std::uint32_t cu, const sim::Handler& when_done) const;
  void add_matrix_work(std::uint32_t cu, double flops, double exact_ps, sim::Handler when_done, sim::Payload payload);
  void start_next(std::uint32_t stream);
  void on_launched(const sim::Payload& payload);
  void try_dispatch(std::uint32_t die);
  void on_dispatched(const sim::Payload& payload);
  void finish_workgroup(WorkgroupContext& wg);
  void on_kernel_done(const sim::Payload& payload);
  void on_matrix(const sim::Payload& payload);
  void reschedule_matrix(std::uint32_t cu);
  std::uint32_t take_context();

  GpuSpec spec_;
  std::uint32_t gpu_;
  CuArray cus_;
  std::vector<MatrixUnit> matrix_;
  std::vector<sim::EventId> matrix_event_;
  std::vector<sim::Tick> matrix_event_ps_;
  std::vector<MatrixUnit::Completion> completions_;  // scratch, reused
  std::vector<DieDispatcher> dies_;
  std::vector<Stream> streams_;
  std::vector<KernelRecord> records_;
  std::vector<KernelState> states_;
  std::deque<WorkgroupContext> contexts_;  // deque: contexts keep their address as the pool grows
  std::vector<std::uint32_t> free_contexts_;
  std::uint32_t running_kernels_ = 0;
  bool oldest_first_ = false;

  sim::stats::Counter* workgroups_dispatched_;
  sim::stats::Counter* kernels_completed_;
  sim::stats::Counter* matrix_flops_;
  sim::stats::Counter* cu_occupied_ps_;
  sim::stats::Counter* matrix_busy_ps_;
  sim::stats::Accumulator* kernel_time_ps_;
};

}  // namespace tessera::models::compute
