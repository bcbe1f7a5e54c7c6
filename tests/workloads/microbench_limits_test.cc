// The microbenchmarks' size limits (workloads/microbench/microbench_limits.h): buffers beyond one
// GPU's HBM, more accesses or bytes than a day of simulation, and more launches than records
// fit are config errors naming the key, raised in milliseconds before any machine is built.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "sim/config/config_error.h"
#include "tests/support/run_config.h"
#include "workloads/microbench/microbench_limits.h"
#include "workloads/microbench/read_microbench.h"
#include "workloads/microbench/run_microbench.h"

namespace mb = tessera::workloads::microbench;

namespace {

// The config error of a microbench workload on `system` (file:line:col: key: message), or "no
// error"; fails the test when reading takes more than a fraction of a second.
std::string error_of(const std::string& system, const std::string& workload) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string message = "no error";
  try {
    const auto parts = tessera::test::read_run_config_text("system: " + system + "\nworkload: {kind: microbench, " +
                                                           workload + "}\n");
    mb::read_microbench(parts.workload, parts.system);
  } catch (const tessera::sim::config::ConfigError& e) {
    message = e.what();
  }
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(500));
  return message;
}

}  // namespace

TEST_CASE("a buffer beyond one GPU's HBM is a config error at 'bytes'") {
  const std::string e = error_of("h200-1", "op: hbm_stream, bytes: 1 TiB");
  INFO(e);
  CHECK(e.find(":2:") != std::string::npos);  // the workload's line
  CHECK(e.find("workload.bytes: hbm_stream needs 2 TiB on one GPU; a H200 SXM has 141 GB of HBM") != std::string::npos);
  // all_store receives bytes from every peer: (n - 1) x bytes per GPU.
  CHECK(error_of("mi300x-8", "op: all_store, bytes: 32 GB").find("all_store needs 209 GiB on one GPU") != std::string::npos);
  CHECK(error_of("mi300x-8", "op: all_store, bytes: 16 GB") == "no error");
}

TEST_CASE("more accesses or bytes than a day of simulation are config errors") {
  // 64 GiB in 128 B chunks, re-read 2^24 times: ~9 x 10^15 accesses.
  const std::string e = error_of("mi300x-1", "op: l2_bandwidth, bytes: 64 GiB, chunk: 128 B, iterations: 16777216");
  INFO(e);
  CHECK(e.find("workload.iterations: l2_bandwidth would issue") != std::string::npos);
  CHECK(e.find("at most 1e+11") != std::string::npos);
  // Few accesses, but each of 1 TiB: the bytes moved.
  CHECK(error_of("mi300x-1", "op: l2_bandwidth, bytes: 128 GiB, chunk: 1 TiB, iterations: 16777216")
            .find("would move") != std::string::npos);
  CHECK(error_of("mi300x-8", "op: atomic_add, workgroups: 16777216, iterations: 16777216").find("workload.iterations") !=
        std::string::npos);
}

TEST_CASE("launch_latency may enqueue at most kMaxLaunches kernels") {
  CHECK(error_of("mi300x-1", "op: launch_latency, iterations: 16777216").find("launch_latency enqueues 16777216 kernels") !=
        std::string::npos);
  CHECK(error_of("mi300x-1", "op: launch_latency, iterations: 1000") == "no error");
}

TEST_CASE("run_microbench checks the same limits itself, for callers that skip the config reader") {
  const auto parts =
      tessera::test::read_run_config_text("system: h200-1\nworkload: {kind: microbench, op: hbm_stream, bytes: 1 GiB}\n");
  auto params = mb::read_microbench(parts.workload, parts.system);
  params.bytes = 1ULL << 45;
  CHECK_THROWS_WITH_AS(mb::run_microbench(parts.system, params), doctest::Contains("of HBM"), std::invalid_argument);
  CHECK(mb::footprint_bytes_per_gpu(params, 1) == 1ULL << 46);
}
