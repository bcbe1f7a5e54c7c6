#pragma once
#include "workloads/phold/phold_params.h"

namespace tessera::workloads::phold {

// The event queue behind the engine; `kDefault` is the one sim::Engine uses. The others are
// there so that bench_phold can compare queues on the same draws.
enum class QueueKind { kDefault, kBinaryHeap, kQuaternaryHeap, kOctonaryHeap, kRadixHeap };

// PHOLD on Tessera's engine (sim::Engine): the number `tessera bench phold` reports.
PholdResult run_phold_engine(const PholdParams& params, QueueKind queue = QueueKind::kDefault);

// PHOLD on a bare std::push_heap/pop_heap loop with the same draws and tie-break: the floor
// that tells how much the engine's generality costs.
PholdResult run_phold_bare(const PholdParams& params);

}  // namespace tessera::workloads::phold
