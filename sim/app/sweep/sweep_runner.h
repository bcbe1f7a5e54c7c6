#pragma once
// Runs points on local cores. Threads suffice: a run shares nothing mutable with another (no
// global state in the engine, the models or the generators; the only statics are immutable
// tables initialised once, thread-safely).
#include <atomic>
#include <cstddef>
#include <functional>

#include "sim/app/run/run_spec.h"
#include "sim/app/sweep/point_result.h"

namespace tessera::app::sweep {

// The hardware threads, at least 1.
unsigned hardware_jobs();

// Calls task(i) for every i in [0, count) on up to `jobs` threads (the calling thread is one of
// them), in increasing i as threads free up; returns when every task is done. Once `*stop` is
// set, no further task starts (those running finish). Tasks must not throw.
void run_parallel(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& task,
                  const std::atomic<bool>* stop = nullptr);

// Runs one point and times it; any exception becomes a failed result with its message. A point
// stopped by --max-wall fails (its partial result depends on the machine's speed, so it is not
// kept: --resume runs it again); one stopped by the interrupt flag is abandoned. One stopped by
// max_events is a result like any other (the config asked for it; it is reproducible).
PointResult run_point(std::size_t index, const run::RunSpec& spec);

}  // namespace tessera::app::sweep
