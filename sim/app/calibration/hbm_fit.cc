// hbm: hbm_stream (one GPU copies `bytes` within its HBM) over several sizes.
//   time = a + 2 bytes / hbm_bandwidth             (reads and writes share the HBM in Tessera)
//   (a is reported only: it mixes the kernel's ramp-up and drain with the latency)
// Only copies of at least kMinBytesPerL2 x the L2 are used: below that, part of the written data
// stays in the write-back L2 (on the device and in Tessera), so the time is not HBM-bound. With a
// single size, the bandwidth alone is fitted, through the intercept the system already implies.
#include <algorithm>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/calibration/system_figures.h"
#include "sim/config/units.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kBandwidth = "gpu.memory.hbm_bandwidth";
constexpr const char* kLatency = "gpu.memory.hbm_latency";
constexpr double kMinBytesPerL2 = 4.0;

FitOutcome no_growth(FitOutcome out) {
  out.not_fitted = {{kBandwidth, "the measured time does not grow with the bytes copied"},
                    {kLatency, "the measured time does not grow with the bytes copied"}};
  return out;
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "hbm";
  out.model = "time = a + 2 bytes / hbm_bandwidth";
  out.unit = "ns";
  const double min_bytes = kMinBytesPerL2 * total_l2_bytes(in.system);
  std::vector<const CalibrationPoint*> points;
  std::size_t too_small = 0;
  for (const CalibrationPoint* p : points_of(in, {"hbm_stream"})) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    if (static_cast<double>(mb.bytes) >= min_bytes) {
      points.push_back(p);
    } else {
      ++too_small;
    }
  }
  if (too_small > 0) {
    out.notes.push_back(fmt::format("{} hbm_stream result(s) below {} x the L2 ({}) left out: part of their writes stays in the L2",
                                    too_small, kMinBytesPerL2, sim::config::format_bytes(static_cast<std::uint64_t>(min_bytes))));
  }
  if (points.empty()) {
    const std::string why =
        fmt::format("no passed hbm_stream results of at least {}", sim::config::format_bytes(static_cast<std::uint64_t>(min_bytes)));
    out.not_fitted = {{kBandwidth, why}, {kLatency, why}};
    return out;
  }
  out.files = files_of(points);
  const auto direct_points = bandwidth_bound(in.system, points);
  std::vector<double> x, y, overhead_ns;
  for (const CalibrationPoint* p : direct_points) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    x.push_back(2.0 * static_cast<double>(mb.bytes));
    y.push_back(p->measured);
    const std::uint64_t workgroups = mb.workgroups == 0 ? default_stream_workgroups(in.system) : mb.workgroups;
    overhead_ns.push_back(kernel_overhead_ps(in.system, workgroups) / 1e3);
  }
  // The intercept of a copy's time over its size mixes the kernel's ramp-up and drain with the memory latency, so
  // it is reported, not written: hbm_latency keeps its published pointer-chase value.
  double slope = 0;
  if (spans(x, kMinSpreadForLine)) {
    const Line line = fit_line(x, y);
    out.direct = line.residual;
    slope = line.slope;
    out.notes.push_back(fmt::format("intercept {:.1f} ns (kernel overhead so far {:.1f} ns): not written, hbm_latency "
                                    "keeps its published value", line.intercept, overhead_ns.front()));
  } else {
    const double latency_ns = static_cast<double>(in.system.gpu.memory.hbm_latency_ps) / 1e3;
    std::vector<double> beyond;
    for (std::size_t i = 0; i < y.size(); ++i) beyond.push_back(y[i] - overhead_ns[i] - latency_ns);
    slope = fit_proportional(x, beyond);
    std::vector<double> model;
    for (std::size_t i = 0; i < y.size(); ++i) model.push_back(overhead_ns[i] + latency_ns + slope * x[i]);
    out.direct = residual_of(y, model);
  }
  if (!(slope > 0)) return no_growth(std::move(out));
  out.values.push_back({&calibration_key(kBandwidth), 1e9 / slope, 0, ""});
  out.not_fitted.push_back({kLatency, "not identifiable from copy times (the intercept mixes ramp-up, drain and "
                                      "latency): the published value is kept"});
  for (FittedValue& v : out.values) v.value = v.direct;
  refine_and_check(in, points, out);
  return out;
}

}  // namespace

FitUnit hbm_fit() { return {"hbm", "hbm_stream", fit}; }

}  // namespace tessera::app::calibration
