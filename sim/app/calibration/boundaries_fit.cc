// boundaries: a kernel's teardown and the per-workgroup dispatch cost, read off the GPU's global
// timer (schema tessera-kernel-boundaries/1: kernels/framework/kernel_boundaries.py).
//   kernel_teardown    = the mean over files of (stream delay - direct delay): from a kernel's last
//                        instruction to its stream's next command, the flag's own visibility taken out
//   workgroup_dispatch = the slope of a line through (ceil(W / num_dies) - 1, span of the W starts)
//                        over the dispatch cases, W workgroups resident at once
// Why here and first. The launch-latency case times empty kernels back to back: one sum per kernel
// (launch + dispatch + teardown), from which the launch fit cannot tell the teardown apart, and on
// two H200s its line over 1, 132 and 1024 workgroups had a negative slope (the dispatch of 1024
// workgroups hides in the host's launch pace). Measured here, both keys are fixed before the launch
// fit runs, which then fits the launch latency alone: a stream's back-to-back kernels keep the
// measured sum, and what waits for a kernel's completion (another stream, the host, a peer) sees
// it the teardown after the last workgroup, as on the GPU. Tessera's dispatcher (gpu_compute.h)
// starts die d's i-th workgroup i x workgroup_dispatch after the launch, which is this line's model.
#include <cmath>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kTeardown = "gpu.dispatch.kernel_teardown";
constexpr const char* kDispatch = "gpu.dispatch.workgroup_dispatch";

// ceil(W / dies) - 1 of every dispatch case, in file order: the dispatches before the last start on a die.
std::vector<double> dispatches_before_last(const FitInputs& in) {
  std::vector<double> x;
  if (in.kernel_boundaries == nullptr) return x;
  const double dies = in.system.gpu.compute.num_dies;
  for (const measured::KernelBoundaries& b : *in.kernel_boundaries) {
    for (const measured::DispatchSpan& d : b.dispatch) x.push_back(std::ceil(d.workgroups / dies) - 1);
  }
  return x;
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "boundaries";
  out.model = "kernel_teardown = mean of (stream delay - direct delay); span of W resident starts = a + (ceil(W / num_dies) - 1) x "
              "workgroup_dispatch";
  out.unit = "ns";
  if (in.kernel_boundaries == nullptr || in.kernel_boundaries->empty()) {
    const char* why = "no kernel-boundary measurements (schema tessera-kernel-boundaries/1)";
    out.not_fitted = {{kTeardown, why}, {kDispatch, why}};
    return out;
  }
  double teardown_sum = 0;
  const std::vector<double> x = dispatches_before_last(in);
  std::vector<double> y;
  for (const measured::KernelBoundaries& b : *in.kernel_boundaries) {
    out.files.push_back(b.display_name);
    teardown_sum += b.teardown_ns;
    for (const measured::DispatchSpan& d : b.dispatch) y.push_back(d.span_ns);
    out.notes.push_back(fmt::format("{} ({}): teardown {:.0f} ns; a queued kernel's first workgroup starts {:.0f} ns after the "
                                    "previous one's last ends (recorded: Tessera starts a stream's next launch at the completion)",
                                    b.display_name, b.device, b.teardown_ns, b.queued_gap_ns));
  }
  const double teardown_ns = teardown_sum / static_cast<double>(in.kernel_boundaries->size());
  out.values.push_back({&calibration_key(kTeardown), teardown_ns * 1e3, teardown_ns * 1e3, ""});
  if (distinct_values(x) >= 2) {
    const Line line = fit_line(x, y);
    out.direct = line.residual;
    FittedValue v{&calibration_key(kDispatch), line.slope * 1e3, std::max(0.0, line.slope) * 1e3, ""};
    if (line.slope < 0) v.note = "the direct fit was negative: clamped at 0";
    out.values.push_back(v);
    out.notes.push_back(fmt::format("dispatch: {} case(s), line intercept {:.1f} ns (spans are whole ticks of the GPU's timer)",
                                    x.size(), line.intercept));
  } else {
    out.not_fitted.push_back({kDispatch, "the dispatch cases need two or more workgroup counts per die"});
  }
  return out;
}

}  // namespace

// True when a boundaries file gave the dispatch cost (the launch fit then leaves it alone).
bool dispatch_measured(const FitInputs& in) { return distinct_values(dispatches_before_last(in)) >= 2; }

FitUnit boundaries_fit() { return {"boundaries", "kernel boundaries (tessera-kernel-boundaries/1)", fit}; }

}  // namespace tessera::app::calibration
