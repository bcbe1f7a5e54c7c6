// kernel_efficiency: the matrix efficiency of one kernel's inner loop by occupancy, from the
// microbenchmarks of that loop at one, two, ... workgroups per CU: matrix_rate results that name
// the kernel (tessera.workload.kernel: the GEMM tile loops) and attention_step (the attention
// kernel's KV step). Each point is
//   efficiency(kernel, dtype, resident) = achieved FLOP/s / (matrix_flops_per_clock_per_cu.<dtype> x clock x CUs)
// with resident = workgroups / CUs (a whole number: the suite launches whole waves). The entry's
// list holds, for 1 .. the largest measured occupancy, the measured efficiency (the mean where a
// kernel has several points at one occupancy), linear interpolation between measured
// occupancies, and the lowest measured occupancy's value below it; the last entry holds beyond
// (docs/config-reference.md). Tessera has no such microbenchmark to refine on.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/calibration/fits.h"

namespace tessera::app::calibration {
namespace {

struct Sample {
  double efficiency = 0;
  double tflops = 0;
  const CalibrationPoint* point = nullptr;
};

double round4(double v) { return std::round(v * 1e4) / 1e4; }

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "kernel_efficiency";
  out.model = "efficiency(kernel, resident workgroups per CU) = rate / (matrix_flops_per_clock_per_cu x clock x CUs)";
  out.unit = "TFLOP/s";
  const auto& c = in.system.gpu.compute;
  const double cus = static_cast<double>(models::total_compute_units(in.system.gpu));
  // (kernel, dtype) -> resident -> samples.
  std::map<std::pair<std::string, std::string>, std::map<std::uint32_t, std::vector<Sample>>> curves;
  std::vector<const CalibrationPoint*> used;
  for (const CalibrationPoint* p : points_of(in, {measured::kMatrixRateCase, measured::kAttentionStepCase})) {
    const std::vector<std::string> kernels = measured::inner_loop_kernels(*p->source);
    if (kernels.empty()) continue;  // the default matrix_efficiency's points (matrix_fit.cc)
    const std::string dtype = measured::matrix_rate_dtype(*p->source);
    const double peak = models::rate_of(c.matrix_flops_per_clock_per_cu, dtype) * c.clock_hz * cus;
    const auto wg = p->source->metrics.find("workgroups");
    const double workgroups = wg != p->source->metrics.end() && wg->is_number() ? wg->get<double>() : 0;
    const double resident = workgroups / cus;
    if (!(peak > 0) || !(resident >= 1) || std::abs(resident - std::round(resident)) > 1e-9) {
      out.notes.push_back(fmt::format("{} left out: {}", p->source->display_name,
                                      peak > 0 ? fmt::format("{} workgroups are not whole waves of {} CUs", workgroups, cus)
                                               : fmt::format("the system has no {} matrix rate", dtype)));
      continue;
    }
    used.push_back(p);
    for (const std::string& kernel : kernels) {
      curves[{kernel, dtype}][static_cast<std::uint32_t>(std::lround(resident))].push_back(
          Sample{p->measured / peak, p->measured / 1e12, p});
    }
  }
  if (used.empty()) {
    out.not_fitted = {{"gpu.compute.kernel_efficiency", "no passed matrix_rate result with a kernel, nor attention_step"}};
    return out;
  }
  out.files = files_of(used);
  std::vector<double> y, model;
  for (const auto& [key, by_resident] : curves) {
    const auto& [kernel, dtype] = key;
    std::map<std::uint32_t, double> measured;  // resident -> mean efficiency
    std::vector<std::string> lines;
    lines.push_back(fmt::format("fit 'kernel_efficiency' for kernel '{}' ({}): {}", kernel, dtype, out.model));
    for (const auto& [resident, samples] : by_resident) {
      double sum = 0;
      for (const Sample& s : samples) sum += s.efficiency;
      measured[resident] = sum / static_cast<double>(samples.size());
      for (const Sample& s : samples) {
        lines.push_back(fmt::format("{} workgroup(s) per CU: {:.1f} TFLOP/s = {:.4f} of peak ({}, {})", resident, s.tflops,
                                    s.efficiency, s.point->source->display_name, s.point->source->device));
      }
    }
    const std::uint32_t last = measured.rbegin()->first;
    models::KernelEfficiency entry;
    entry.kernel = kernel;
    entry.dtype = dtype;
    bool clamped = false;
    for (std::uint32_t n = 1; n <= last; ++n) {
      double e = 0;
      const auto above = measured.lower_bound(n);
      if (above->first == n || above == measured.begin()) {
        e = above->second;
      } else {
        const auto below = std::prev(above);
        const double t = static_cast<double>(n - below->first) / static_cast<double>(above->first - below->first);
        e = below->second + t * (above->second - below->second);
      }
      if (e > 1) clamped = true;
      entry.efficiency.push_back(std::clamp(round4(e), 1e-4, 1.0));
    }
    lines.push_back(fmt::format("efficiency[i] for i + 1 resident workgroups: measured occupancies as measured, others "
                                "interpolated (below the lowest: its value); the last holds beyond"));
    if (clamped) lines.push_back("a measured rate above the peak (the clock above the system's) is clamped at 1");
    for (const auto& [resident, samples] : by_resident) {
      for (const Sample& s : samples) {
        y.push_back(s.tflops);
        model.push_back(entry.efficiency[resident - 1] * s.tflops / s.efficiency);
      }
    }
    out.kernel_efficiency.push_back(FittedKernelEfficiency{std::move(entry), std::move(lines)});
  }
  out.direct = residual_of(y, model);
  return out;
}

}  // namespace

FitUnit kernel_efficiency_fit() { return {"kernel_efficiency", "matrix_rate (with a kernel), attention_step", fit}; }

}  // namespace tessera::app::calibration
