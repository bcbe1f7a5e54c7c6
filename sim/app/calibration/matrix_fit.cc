// matrix: matrix_rate (a tile loop of the suite's GEMM inner loop on every CU, no global memory
// traffic), per data type.
//   achieved FLOP/s = matrix_efficiency.<dtype> x matrix_flops_per_clock_per_cu.<dtype> x clock x CUs
// The weighted mean of the measured rates over the peak. Tessera has no such microbenchmark to
// refine on; the residual is that of the rates around the fitted efficiency.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/measured/measured_data_error.h"

namespace tessera::app::calibration {
namespace {

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "matrix";
  out.model = "rate = matrix_efficiency x matrix_flops_per_clock_per_cu x clock x CUs";
  out.unit = "TFLOP/s";
  // Tile loops tagged with the kernel whose inner loop they are calibrate that kernel's
  // kernel_efficiency (kernel_efficiency_fit.cc), not the default.
  std::vector<const CalibrationPoint*> points;
  for (const CalibrationPoint* p : points_of(in, {measured::kMatrixRateCase})) {
    if (measured::inner_loop_kernels(*p->source).empty()) points.push_back(p);
  }
  if (points.empty()) {
    out.not_fitted = {{"gpu.compute.matrix_efficiency.*", "no passed matrix_rate results"}};
    return out;
  }
  out.files = files_of(points);
  std::map<std::string, std::vector<const CalibrationPoint*>> by_dtype;
  for (const CalibrationPoint* p : points) by_dtype[measured::matrix_rate_dtype(*p->source)].push_back(p);
  std::vector<double> y, model;
  for (const auto& [dtype, group] : by_dtype) {
    const CalibrationKey* key = find_calibration_key("gpu.compute.matrix_efficiency." + dtype);
    if (key == nullptr) {
      throw measured::MeasuredDataError(group.front()->source->display_name, "params.dtype",
                                        fmt::format("unknown data type '{}' (fp16, bf16, fp8, fp32)", dtype));
    }
    const auto& c = in.system.gpu.compute;
    const double peak = models::rate_of(c.matrix_flops_per_clock_per_cu, dtype) * c.clock_hz * models::total_compute_units(in.system.gpu);
    if (peak <= 0) {
      out.not_fitted.push_back({std::string(key->path), fmt::format("the system has no {} matrix rate", dtype)});
      continue;
    }
    std::vector<double> rates;
    for (const CalibrationPoint* p : group) rates.push_back(p->measured);
    const double efficiency = fit_proportional(std::vector<double>(rates.size(), peak), rates);
    FittedValue v{key, efficiency, efficiency, ""};
    if (efficiency > 1) {
      v.note = fmt::format("measured above the peak ({:.1f} of {:.1f} TFLOP/s: the clock runs above the system's): clamped at 1",
                           efficiency * peak / 1e12, peak / 1e12);
    }
    out.values.push_back(v);
    for (double r : rates) {
      y.push_back(r / 1e12);
      model.push_back(std::min(1.0, efficiency) * peak / 1e12);
    }
  }
  out.direct = residual_of(y, model);
  return out;
}

}  // namespace

FitUnit matrix_fit() { return {"matrix", "matrix_rate", fit}; }

}  // namespace tessera::app::calibration
