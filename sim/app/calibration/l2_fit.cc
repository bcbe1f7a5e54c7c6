// l2: l2_bandwidth (one GPU re-reads a working set that fits in its L2; one kernel of
// `iterations` timed passes) at working sets of at most kMaxL2Share of the L2.
//   time = a + bytes x iterations / (num_dies x l2.bandwidth)      (l2.bandwidth is per instance)
// The intercept is reported, not written: the L2 hit latency keeps its published value.
#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/calibration/system_figures.h"
#include "sim/config/units.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kBandwidth = "gpu.memory.l2.bandwidth";
// Above this share, conflict misses of the set-associative L2 make the re-reads partly HBM-bound.
constexpr double kMaxL2Share = 0.75;

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "l2";
  out.model = "time = a + bytes x iterations / (num_dies x l2.bandwidth)";
  out.unit = "ns";
  const double max_bytes = kMaxL2Share * total_l2_bytes(in.system);
  std::vector<const CalibrationPoint*> points;
  std::size_t too_large = 0;
  for (const CalibrationPoint* p : points_of(in, {"l2_bandwidth"})) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    if (static_cast<double>(mb.bytes) <= max_bytes) {
      points.push_back(p);
    } else {
      ++too_large;
    }
  }
  if (too_large > 0) {
    out.notes.push_back(fmt::format("{} l2_bandwidth result(s) above {} of the L2 ({}) left out", too_large, kMaxL2Share,
                                    sim::config::format_bytes(static_cast<std::uint64_t>(max_bytes))));
  }
  if (points.empty()) {
    out.not_fitted = {{kBandwidth, fmt::format("no passed l2_bandwidth results with a working set of at most {}",
                                               sim::config::format_bytes(static_cast<std::uint64_t>(max_bytes)))}};
    return out;
  }
  out.files = files_of(points);
  std::vector<double> x, y, overhead_ns;
  for (const CalibrationPoint* p : points) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    x.push_back(static_cast<double>(mb.bytes) * mb.iterations);
    y.push_back(p->measured);
    const std::uint64_t workgroups = mb.workgroups == 0 ? default_stream_workgroups(in.system) : mb.workgroups;
    overhead_ns.push_back(kernel_overhead_ps(in.system, workgroups) / 1e3);
  }
  double slope = 0;
  if (spans(x, kMinSpreadForLine)) {
    const Line line = fit_line(x, y);
    out.direct = line.residual;
    slope = line.slope;
    out.notes.push_back(fmt::format("intercept {:.1f} ns (not written: the L2 hit latency keeps its published value)", line.intercept));
  } else {
    std::vector<double> beyond;
    for (std::size_t i = 0; i < y.size(); ++i) beyond.push_back(y[i] - overhead_ns[i]);
    slope = fit_proportional(x, beyond);
    std::vector<double> model;
    for (std::size_t i = 0; i < y.size(); ++i) model.push_back(overhead_ns[i] + slope * x[i]);
    out.direct = residual_of(y, model);
  }
  if (!(slope > 0)) {
    out.not_fitted = {{kBandwidth, "the measured time does not grow with the bytes read"}};
    return out;
  }
  const double per_instance = 1e9 / slope / in.system.gpu.compute.num_dies;
  out.values.push_back({&calibration_key(kBandwidth), per_instance, per_instance, ""});
  refine_and_check(in, points, out);
  return out;
}

}  // namespace

FitUnit l2_fit() { return {"l2", "l2_bandwidth", fit}; }

}  // namespace tessera::app::calibration
