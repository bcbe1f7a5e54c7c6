#include "sim/app/ablation.h"

#include <fmt/format.h>

#include "models/system/system_loader.h"
#include "sim/config/units.h"
#include "sim/app/usage_error.h"

namespace tessera::app {

using workloads::replay::TimeCategory;

Ablation ablation_of(const std::string& name) {
  if (name == "launch") {
    return {name, TimeCategory::kLaunchOverhead,
            {"system.gpu.dispatch.kernel_launch_latency=0 ps", "system.gpu.dispatch.workgroup_dispatch=0 ps",
             "system.gpu.dispatch.kernel_teardown=0 ps", "system.host.collective_call=0 ps"},
            false,
            false,
            true};
  }
  if (name == "locality") return {name, TimeCategory::kInterKernelLocality, {}, true, false};
  if (name == "sync") return {name, TimeCategory::kBulkSynchronous, {}, false, true};
  throw UsageError(fmt::format("--ablate {}: expected launch, locality or sync", name));
}

std::optional<ReferenceCost> reference_cost(const Ablation& ablation) {
  if (ablation.name != "launch") return std::nullopt;
  const std::string system = "h200-2-calibrated";
  const models::DispatchSpec& d = models::load_system_spec(system).gpu.dispatch;
  const auto time = [](sim::Tick ps) { return sim::config::format_time_ps(ps); };
  return ReferenceCost{
      system,
      {fmt::format("system.gpu.dispatch.kernel_launch_latency={} ps", d.kernel_launch_latency_ps),
       fmt::format("system.gpu.dispatch.workgroup_dispatch={} ps", d.workgroup_dispatch_ps),
       fmt::format("system.gpu.dispatch.kernel_teardown={} ps", d.kernel_teardown_ps)},
      fmt::format("kernel launch latency {}, workgroup dispatch {}, kernel teardown {}", time(d.kernel_launch_latency_ps),
                  time(d.workgroup_dispatch_ps), time(d.kernel_teardown_ps))};
}

}  // namespace tessera::app
