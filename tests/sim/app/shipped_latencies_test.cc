// Every shipped system file, the nameplate ones (*-spec) included, sets every latency that applies
// to its machine to a measured or estimated value above zero: a 0 would make that step free, a
// silent default. The kernel teardown and the per-workgroup dispatch too: measured on the H200's
// timer (validation/data/h200-1/kernel-boundaries/), estimated for the other GPUs; and the host's
// costs per call (measured on the lent machines' hosts, estimated elsewhere).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>
#include <string_view>

#include "models/system/parameter_ranges.h"
#include "models/system/system_loader.h"
#include "sim/config/embedded_files.h"

using tessera::models::SystemSpec;

TEST_CASE("shipped systems: every latency that applies is above zero") {
  int checked = 0;
  for (const auto& file : tessera::sim::config::embedded_files()) {
    const std::string_view path = file.path;
    if (path.substr(0, 8) != "systems/" || path.size() < 13 || path.substr(path.size() - 5) != ".yaml") continue;
    const std::string name(path.substr(8, path.size() - 13));
    CAPTURE(name);
    const SystemSpec s = tessera::models::load_system_spec(name);
    CHECK(s.gpu.dispatch.kernel_launch_latency_ps > 0);
    CHECK(s.gpu.memory.hbm_latency_ps > 0);
    CHECK(s.gpu.memory.l2.hit_latency_ps > 0);
    if (s.gpu.memory.mall.capacity_bytes > 0) CHECK(s.gpu.memory.mall.hit_latency_ps > 0);
    if (s.gpu.fabric.num_iods > 1) CHECK(s.gpu.fabric.iod_hop_latency_ps > 0);
    CHECK(s.gpu.atomics.local_latency_ps > 0);
    CHECK(s.gpu.atomics.poll_interval_ps > 0);
    if (s.num_gpus > 1) {
      CHECK(s.gpu.atomics.remote_latency_ps > 0);
      CHECK(s.interconnect.link_latency_ps > 0);
    }
    if (s.interconnect.topology == "switch") CHECK(s.interconnect.switch_latency_ps > 0);
    CHECK(s.gpu.dispatch.kernel_teardown_ps > 0);
    CHECK(s.gpu.dispatch.workgroup_dispatch_ps > 0);
    // The host's costs: a collective library's call, an eager framework's op and collective.
    CHECK(s.host.collective_call_ps > 0);
    CHECK(s.host.framework_op_ps > 0);
    CHECK(s.host.framework_collective_ps > 0);
    ++checked;
  }
  CHECK(checked >= 19);
}

TEST_CASE("shipped systems: the values a nameplate file borrows as estimates are listed as estimates") {
  // A nameplate AMD file takes its latencies and host costs from the measured file, where they are
  // estimates: every run must say so (the ranges are the measured file's). A calibrated file's
  // measured teardown and collective call are not estimates; the H100's, transferred, are.
  const auto estimates = [](const std::string& name) {
    return tessera::models::estimated_keys(tessera::models::load_system_ranges(name));
  };
  const auto has = [](const std::vector<std::string>& keys, const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  for (const char* name : {"mi300x-1-spec", "mi300x-8-spec", "mi325x-8-spec", "mi355x-8-spec"}) {
    CAPTURE(name);
    const std::vector<std::string> keys = estimates(name);
    for (const char* key : {"gpu.dispatch.kernel_launch_latency", "gpu.dispatch.kernel_teardown", "gpu.atomics.local_latency",
                            "host.collective_call", "host.framework_op"}) {
      CAPTURE(key);
      CHECK(has(keys, key));
    }
    if (std::string(name) != "mi300x-1-spec") CHECK(has(keys, "interconnect.link_latency"));
  }
  CHECK_FALSE(has(estimates("h200-2-calibrated"), "gpu.dispatch.kernel_teardown"));
  CHECK_FALSE(has(estimates("h200-2-calibrated"), "host.collective_call"));
  CHECK(has(estimates("h100-2"), "gpu.dispatch.kernel_teardown"));
  CHECK(has(estimates("h100-2"), "host.collective_call"));
}
