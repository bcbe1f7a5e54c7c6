#pragma once
// What a caller launches (KernelLaunch, with the workgroup program as a WorkgroupBody) and
// what it reads back (KernelRecord).
#include <cstdint>
#include <optional>
#include <string>

#include "models/compute/cu_partition.h"
#include "models/compute/occupancy.h"
#include "sim/core/handler.h"
#include "sim/core/tick.h"

namespace tessera::models::compute {

class WorkgroupContext;

// The program of one workgroup, provided by the caller (a trace replay, a pattern). start()
// is called when the workgroup begins on its CU; the body then runs asynchronously (compute,
// wait on memory, spin on flags...) and must call wg.done() exactly once when it ends. A
// persistent kernel is an ordinary kernel whose grid is the number of CUs x slots used; its
// body loops over tiles itself.
class WorkgroupBody {
 public:
  virtual ~WorkgroupBody() = default;
  virtual void start(WorkgroupContext& wg) = 0;
};

using KernelId = std::uint32_t;

struct KernelLaunch {
  std::string name;
  std::uint32_t stream = 0;
  std::uint32_t num_workgroups = 0;
  WorkgroupBody* body = nullptr;          // not owned; must outlive the kernel
  std::optional<CuPartition> partition;   // nullopt: every CU of the GPU
  sim::Handler on_complete;               // optional; called with Payload{tag, kernel id}
  std::uint64_t tag = 0;
  // Optional end-of-kernel release (e.g. writing back dirty L2 data): called with
  // Payload{tag, kernel id} when the last workgroup ends; the kernel then waits until its owner
  // calls GpuCompute::end_of_kernel_done(id) before the teardown starts.
  sim::Handler end_of_kernel;
  // What a workgroup takes of its CU (bounds the resident workgroups per CU: occupancy.h).
  Footprint footprint{};
};

// Times of one kernel, in ps of simulated time. Kernels with no workgroups have their first
// start and last end at the end of the launch latency.
struct KernelRecord {
  std::string name;
  std::uint32_t gpu = 0;
  std::uint32_t stream = 0;
  std::uint32_t num_workgroups = 0;
  sim::Tick enqueue_ps = 0;                // launch() was called
  sim::Tick launch_ps = 0;                 // launch latency starts: max(enqueue, previous completion on stream)
  sim::Tick first_workgroup_start_ps = 0;
  sim::Tick last_workgroup_end_ps = 0;
  sim::Tick completion_ps = 0;             // last workgroup end + teardown
  bool completed = false;
};

}  // namespace tessera::models::compute
