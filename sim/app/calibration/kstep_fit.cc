// kstep: the wait of a load that hits data whose fill is still in flight (gpu.memory.l2.fill_wait),
// from kstep_load, the suite's GEMM K-loop without its matrix work (kernels/patterns/kstep_load.hip):
// each step a workgroup loads one A block and one B block, waits for them and stores them to shared
// memory. The measured number is the time per step (ns).
//
// In Tessera a K-step is two loads one after the other (A, then B), each taking its latency plus
// its bytes at the CU port rate (cu_port_bytes_per_clock x clock: within one window the port caps
// a load). Two regimes:
//   one pass over the K-loop (params.passes = 1; the suite flushes the caches before every
//   iteration, so every step's blocks are new: the first workgroup of the ones sharing a block
//   misses, the others hit while its fill is in flight):
//       ns_per_step = 2 fill_wait + step_bytes / port            -> fill_wait (fitted)
//   several passes over a working set within half the L2 (num_dies x l2.capacity; after the
//   first pass every step hits):
//       ns_per_step = 2 hit_latency + step_bytes / port          (reported as a check, not fitted)
// fill_wait is the weighted least-squares intercept (weights 1 / measured) of the streaming
// points. Tessera runs no such microbenchmark, so there is no refinement step; the hits that miss
// the pending fill, and the first workgroup's own miss, make Tessera's step differ from this
// closed form (docs/validation.md gives the comparison on the patterns).
#include <fmt/format.h>

#include "sim/app/calibration/fits.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kFillWait = "gpu.memory.l2.fill_wait";

double metric(const CalibrationPoint& p, const char* name) {
  const auto it = p.source->metrics.find(name);
  return it != p.source->metrics.end() && it->is_number() ? it->get<double>() : 0.0;
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "kstep";
  out.model = "ns_per_step = 2 fill_wait + step_bytes / (cu_port_bytes_per_clock x clock) (one pass: every step's blocks new)";
  out.unit = "ns";
  const auto points = points_of(in, {"kstep_load"});
  if (points.empty()) {
    out.not_fitted.push_back({kFillWait, "no passed kstep_load results"});
    return out;
  }
  const auto& gpu = in.system.gpu;
  const double l2_bytes = static_cast<double>(gpu.memory.l2.capacity_bytes) * gpu.compute.num_dies;
  const double port_bytes_per_ns = gpu.fabric.cu_port_bytes_per_clock * gpu.compute.clock_hz / 1e9;
  const double hit_ns = static_cast<double>(gpu.memory.l2.hit_latency_ps) / 1e3;
  std::vector<const CalibrationPoint*> streaming;
  std::vector<double> y_stream, y_resident, model_resident;
  for (const CalibrationPoint* p : points) {
    const double set = metric(*p, "working_set_bytes");
    const double bytes = metric(*p, "step_bytes");
    if (!(bytes > 0) || !(set > 0)) {
      out.notes.push_back(fmt::format("{} left out: no metrics.step_bytes or metrics.working_set_bytes", p->source->display_name));
      continue;
    }
    const auto passes = measured::numeric_param(*p->source, "passes");
    if (passes && *passes == 1) {
      streaming.push_back(p);
      y_stream.push_back((p->measured - bytes / port_bytes_per_ns) / 2);
    } else if (set <= 0.5 * l2_bytes) {
      y_resident.push_back(p->measured);
      model_resident.push_back(2 * hit_ns + bytes / port_bytes_per_ns);
      out.notes.push_back(fmt::format("check (inside the L2, not fitted): {} measured {:.1f} ns per step, 2 hit_latency + "
                                      "bytes / port = {:.1f} ns", p->source->display_name, p->measured, model_resident.back()));
    } else {
      out.notes.push_back(fmt::format("{} left out: several passes over a working set beyond half the L2", p->source->display_name));
    }
  }
  if (streaming.empty()) {
    out.not_fitted.push_back({kFillWait, "no kstep_load result of one pass (passes = 1)"});
    return out;
  }
  // Weighted mean of the per-point intercepts (each weighted by 1 / its measured step time).
  double num = 0, den = 0;
  for (std::size_t i = 0; i < streaming.size(); ++i) {
    const double w = 1.0 / (streaming[i]->measured * streaming[i]->measured);
    num += w * y_stream[i];
    den += w;
  }
  const double fill_ns = std::max(0.0, num / den);
  FittedValue v{&calibration_key(kFillWait), fill_ns * 1e3, fill_ns * 1e3, ""};
  if (fill_ns < hit_ns) v.note = "below the hit latency: pending fills cost nothing beyond a hit";
  out.values.push_back(v);
  std::vector<double> y, model;
  for (const CalibrationPoint* p : streaming) {
    y.push_back(p->measured);
    model.push_back(2 * fill_ns + metric(*p, "step_bytes") / port_bytes_per_ns);
  }
  out.files = files_of(streaming);
  out.direct = residual_of(y, model);
  if (!y_resident.empty()) {
    const Residual r = residual_of(y_resident, model_resident);
    out.notes.push_back(fmt::format("inside the L2: 2 hit_latency + bytes / port against {} points: {:.1f}% MAPE", r.points,
                                    r.mape * 100));
  }
  return out;
}

}  // namespace

FitUnit kstep_fit() { return {"kstep", "kstep_load", fit}; }

}  // namespace tessera::app::calibration
