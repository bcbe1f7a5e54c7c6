#include "sim/app/sweep/sweep_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include "sim/app/run_workload.h"

namespace tessera::app::sweep {

unsigned hardware_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

void run_parallel(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) task(i);
  };
  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), count);
  std::vector<std::jthread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
}

PointResult run_point(std::size_t index, const RunSpec& spec) {
  PointResult r;
  r.index = index;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r.summary = run_workload(spec);
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  } catch (...) {
    r.error = "unknown exception";
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace tessera::app::sweep
