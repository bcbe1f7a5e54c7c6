#pragma once
// Runs points on local cores. Threads suffice: a run shares nothing mutable with another (no
// global state in the engine, the models or the generators; the only statics are immutable
// tables initialised once, thread-safely).
#include <cstddef>
#include <functional>

#include "sim/app/run_spec.h"
#include "sim/app/sweep/point_result.h"

namespace tessera::app::sweep {

// The hardware threads, at least 1.
unsigned hardware_jobs();

// Calls task(i) for every i in [0, count) on up to `jobs` threads (the calling thread is one of
// them), in increasing i as threads free up; returns when every task is done. Tasks must not throw.
void run_parallel(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& task);

// Runs one point and times it; any exception becomes a failed result with its message.
PointResult run_point(std::size_t index, const RunSpec& spec);

}  // namespace tessera::app::sweep
