#include "sim/app/sweep/sweep_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include "sim/app/run/stop_message.h"
#include "sim/app/run/run_workload.h"

namespace tessera::app::sweep {

unsigned hardware_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

void run_parallel(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& task,
                  const std::atomic<bool>* stop) {
  std::atomic<std::size_t> next{0};
  const auto stopped = [stop] { return stop != nullptr && stop->load(); };
  const auto worker = [&] {
    for (std::size_t i = next++; i < count && !stopped(); i = next++) task(i);
  };
  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), count);
  std::vector<std::jthread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
}

PointResult run_point(std::size_t index, const run::RunSpec& spec) {
  PointResult r;
  r.index = index;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r.result = run::run_workload(spec);
    r.ok = true;
    const workloads::WorkloadResult& w = r.result->result;
    if (!w.complete && w.stop_reason == sim::StopReason::kInterrupted) {
      r.ok = false;
      r.abandoned = true;
      r.error = "interrupted";
    } else if (!w.complete && w.stop_reason == sim::StopReason::kWallLimit) {
      r.ok = false;
      r.error = *run::stop_message(*r.result, spec.options);
      r.result.reset();
    }
  } catch (const std::exception& e) {
    r.error = e.what();
  } catch (...) {
    r.error = "unknown exception";
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace tessera::app::sweep
