#include "sim/app/ablation.h"

#include <fmt/format.h>

#include "sim/app/usage_error.h"

namespace tessera::app {

using workloads::replay::TimeCategory;

Ablation ablation_of(const std::string& name) {
  if (name == "launch") {
    return {name, TimeCategory::kLaunchOverhead,
            {"system.gpu.dispatch.kernel_launch_latency=0 ps", "system.gpu.dispatch.workgroup_dispatch=0 ps",
             "system.gpu.dispatch.kernel_teardown=0 ps"},
            false};
  }
  if (name == "locality") return {name, TimeCategory::kInterKernelLocality, {}, true};
  if (name == "sync") {
    return {name, TimeCategory::kBulkSynchronous, {"system.gpu.atomics.local_latency=0 ps", "system.gpu.atomics.remote_latency=0 ps"},
            false};
  }
  throw UsageError(fmt::format("--ablate {}: expected launch, locality or sync", name));
}

}  // namespace tessera::app
