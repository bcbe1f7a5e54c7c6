// Every shipped system file, the nameplate ones (*-spec) included, sets every latency that applies
// to its machine to a measured or estimated value above zero: a 0 would make that step free, a
// silent default. The kernel teardown and the per-workgroup dispatch too: measured on the H200's
// timer (validation/data/h200-1/kernel-boundaries/), estimated for the other GPUs.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

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
    ++checked;
  }
  CHECK(checked >= 19);
}
