#pragma once
// How a decode step's tasks (decode_step.h) run on the GPU: the three variants of kind `decode`.
//
//  * kernel_per_op: one kernel per operator and layer, grid = its tasks (workgroup w takes task
//    w), back to back on one stream: each kernel boundary drains the GPU and pays the launch,
//    dispatch and teardown of the system's `dispatch`; with host: pytorch, the host's
//    framework_op before every launch (an eager serving engine).
//  * megakernel: one persistent kernel of workers_per_cu workers per CU. Every operator's tasks
//    are dealt to the workers in task order (task t to worker t mod W), the order of a
//    device-wide queue; a worker finishes its tasks of one operator before it takes the next
//    operator's. A task waits, before its first load of produced data, until every task of the
//    operators it depends on has finished (one counter per operator, as Mirage's persistent
//    kernel and Fleet's runtime count events), acquiring the range it reads; after its stores it
//    releases (its die's L2 writes back) and adds 1 to its operator's counter.
//  * chiplet_tasks: as megakernel, with per-chiplet queues: an operator's column tiles are dealt
//    to the dies round robin (tile n to die n mod D: a weight tile belongs to one die), and on
//    each die its tiles' tasks, every row block of a tile one after another, to that die's
//    workers. The row blocks of a weight tile then run on one die at about the same time and
//    share the tile through that die's L2 (Fleet's cooperative weight tiling across the batch);
//    in the chiplet-unaware order they land on different dies and each die reads the tile from
//    HBM.
//
// Workers run on die (w / chunk) mod D (the system's round-robin dispatch), which is what lets a
// program know its die.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/system/system_spec.h"
#include "workloads/patterns/bsp_collective.h"
#include "workloads/patterns/decode_step.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class DecodeVariant : std::uint8_t { kKernelPerOp, kMegakernel, kChipletTasks };
const std::vector<std::pair<std::string, DecodeVariant>>& decode_variant_choices();

struct DecodeSchedule {
  DecodeVariant variant = DecodeVariant::kKernelPerOp;
  BspHost host = BspHost::kNone;     // kernel_per_op: framework_op before each launch; else before the one
  std::uint32_t workers_per_cu = 1;  // the persistent kernels' workers per CU
};

// The persistent kernels' grid on this system.
std::uint64_t decode_workers(const DecodeSchedule& schedule, const models::SystemSpec& system);

// What keeps the schedule from running on the system (workers beyond the CU's slots, a grid the
// dies do not divide); nullopt when it runs.
std::optional<ParamProblem> schedule_problem(const DecodeSchedule& schedule, const models::SystemSpec& system);

// The step's kernels and host commands on every rank (flags from 0 on each rank: one counter per
// operator, then one per workgroup for its releases).
void append_decode_schedule(trace::TraceBuilder& builder, const DecodeStep& step, const models::SystemSpec& system,
                            const DecodeSchedule& schedule);

}  // namespace tessera::workloads::patterns
