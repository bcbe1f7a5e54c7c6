// launch: per-kernel time of launch_latency (empty kernels back to back on one stream).
//   per kernel = kernel_launch_latency + ceil(workgroups / num_dies) x workgroup_dispatch + kernel_teardown
// A line over the workgroup counts when they vary (both keys), else the launch latency alone.
// kernel_teardown cannot be told apart from the launch latency by this case: it keeps its value
// (the boundaries fit's, or the base's) and the launch latency takes the rest. When the
// boundaries fit measured workgroup_dispatch on the GPU's timer, that value stays too and the
// launch latency is fitted alone (the empty kernels' line over workgroups mixes the dispatch with
// the host's launch pace).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/measured/measured_quantity.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kLaunch = "gpu.dispatch.kernel_launch_latency";
constexpr const char* kDispatch = "gpu.dispatch.workgroup_dispatch";

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "launch";
  out.model = "per kernel = kernel_launch_latency + ceil(workgroups / num_dies) x workgroup_dispatch + kernel_teardown";
  out.unit = "ns";
  // Tessera's kernels are plain stream launches: results of graph launches (mode: graph, a cheaper path that
  // Tessera does not model) are measured for the record and left out of the fit.
  std::vector<const CalibrationPoint*> points;
  for (const CalibrationPoint* p : points_of(in, {"launch_latency"})) {
    if (measured::text_param(*p->source, "mode").value_or("stream") == "stream") points.push_back(p);
  }
  if (points.empty()) {
    out.not_fitted = {{kLaunch, "no passed launch_latency results with mode: stream"},
                      {kDispatch, "no passed launch_latency results with mode: stream"}};
    return out;
  }
  out.files = files_of(points);
  const double dies = in.system.gpu.compute.num_dies;
  const double teardown_ns = static_cast<double>(in.system.gpu.dispatch.kernel_teardown_ps) / 1e3;
  std::vector<double> x, y;
  for (const CalibrationPoint* p : points) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    const double workgroups = mb.workgroups == 0 ? 1.0 : mb.workgroups;  // latency ops: 0 means one
    x.push_back(std::ceil(workgroups / dies));
    y.push_back(p->measured);
  }
  if (distinct_values(x) >= 2 && !dispatch_measured(in)) {
    const Line line = fit_line(x, y);
    out.direct = line.residual;
    out.values.push_back({&calibration_key(kLaunch), (line.intercept - teardown_ns) * 1e3, 0, ""});
    out.values.push_back({&calibration_key(kDispatch), line.slope * 1e3, 0, ""});
  } else {
    const double dispatch_ns = static_cast<double>(in.system.gpu.dispatch.workgroup_dispatch_ps) / 1e3;
    // What the launch and the teardown leave: the per-kernel time less each kernel's dispatch.
    std::vector<double> ones(y.size(), 1.0), undispatched;
    for (std::size_t i = 0; i < y.size(); ++i) undispatched.push_back(y[i] - x[i] * dispatch_ns);
    const double launch_and_teardown = fit_proportional(ones, undispatched);
    std::vector<double> model;
    for (double per_die : x) model.push_back(launch_and_teardown + per_die * dispatch_ns);
    out.direct = residual_of(y, model);
    out.values.push_back({&calibration_key(kLaunch), (launch_and_teardown - teardown_ns) * 1e3, 0, ""});
    if (dispatch_measured(in)) {
      out.notes.push_back("gpu.dispatch.workgroup_dispatch and kernel_teardown as the boundaries fit measured them: the launch "
                          "latency is the rest of the per-kernel time");
    } else {
      out.not_fitted.push_back({kDispatch, fmt::format("every launch_latency result ran {} workgroup(s) per die: run it with "
                                                       "several workgroup counts to separate the dispatch cost", x[0])});
    }
  }
  for (FittedValue& v : out.values) {
    if (v.direct < 0) v.note = "the direct fit was negative: clamped at 0";
    v.direct = std::max(0.0, v.direct);
    v.value = v.direct;
  }
  refine_and_check(in, points, out);
  return out;
}

}  // namespace

FitUnit launch_fit() { return {"launch", "launch_latency", fit}; }

}  // namespace tessera::app::calibration
