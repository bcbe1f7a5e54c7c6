// kstep: the L2 hit latency a load sees when every SM streams a GEMM's K-loop (gpu.memory.l2.hit_latency,
// loaded), from kstep_load, the suite's GEMM K-loop without its matrix work
// (kernels/patterns/kstep_load.hip): each step a workgroup issues the loads of one A block and one B
// block together (fetch_blocks), waits for them and stores them to shared memory. The measured
// number is the time per step (ns).
//
// Why a loaded latency: the published L2 hit latency is a pointer chase on an idle GPU (~140 ns on
// H100); a K-step on a busy GPU measures 650-750 ns, also when its blocks are L2 hits. Tessera has no
// queueing inside the L2 slices, so the calibrated file takes the latency the GEMM's loads see.
//
// In Tessera a K-step's two loads are in flight together (the prefetched K-loop of
// workloads/patterns/gemm_tiling.h), each taking its latency plus its bytes at the CU port rate
// (cu_port_bytes_per_clock x clock: within one window the port caps a load; each load has its
// own cap), so the step ends with the larger block. In one pass over the K-loop (params.passes = 1;
// the suite flushes the caches before every iteration, so every step's blocks are new: the first
// workgroup of the ones sharing a block misses, the others hit it in the L2, as in a large GEMM):
//       ns_per_step = hit_latency + max(a_bytes, b_bytes) / port   -> hit_latency (fitted)
// with a_bytes = block_m x block_k x 2 and b_bytes = block_k x block_n x 2 (fp16; without the
// block parameters, step_bytes / 2 each). hit_latency is the weighted least-squares intercept
// (weights 1 / measured) of the one-pass points. Several passes over a working set within half the
// L2 (num_dies x l2.capacity) are reported as a check against the same closed form, not fitted.
// Tessera runs no such microbenchmark, so there is no refinement step.
#include <fmt/format.h>

#include "sim/app/calibration/fits.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kHitLatency = "gpu.memory.l2.hit_latency";

double metric(const CalibrationPoint& p, const char* name) {
  const auto it = p.source->metrics.find(name);
  return it != p.source->metrics.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The larger of the step's two blocks (fp16, the suite's kstep_load), or half the step's bytes.
double larger_block_bytes(const CalibrationPoint& p, double step_bytes) {
  constexpr double kFp16Bytes = 2;
  const auto m = measured::numeric_param(*p.source, "block_m");
  const auto n = measured::numeric_param(*p.source, "block_n");
  const auto k = measured::numeric_param(*p.source, "block_k");
  if (!m || !n || !k) return step_bytes / 2;
  return std::max(*m, *n) * *k * kFp16Bytes;
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "kstep";
  out.model =
      "ns_per_step = hit_latency + max(a_bytes, b_bytes) / (cu_port_bytes_per_clock x clock) (A and B loaded together; "
      "one pass: every step's blocks new; a loaded latency)";
  out.unit = "ns";
  const auto points = points_of(in, {"kstep_load"});
  if (points.empty()) {
    out.not_fitted.push_back({kHitLatency, "no passed kstep_load results"});
    return out;
  }
  const auto& gpu = in.system.gpu;
  const double l2_bytes = static_cast<double>(gpu.memory.l2.capacity_bytes) * gpu.compute.num_dies;
  const double port_bytes_per_ns = gpu.fabric.cu_port_bytes_per_clock * gpu.compute.clock_hz / 1e9;
  const double hit_ns = static_cast<double>(gpu.memory.l2.hit_latency_ps) / 1e3;
  std::vector<const CalibrationPoint*> streaming, resident;
  std::vector<double> y_stream;
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
      y_stream.push_back(p->measured - larger_block_bytes(*p, bytes) / port_bytes_per_ns);
    } else if (set <= 0.5 * l2_bytes) {
      resident.push_back(p);
    } else {
      out.notes.push_back(fmt::format("{} left out: several passes over a working set beyond half the L2", p->source->display_name));
    }
  }
  if (streaming.empty()) {
    out.not_fitted.push_back({kHitLatency, "no kstep_load result of one pass (passes = 1)"});
    return out;
  }
  // Weighted mean of the per-point intercepts (each weighted by 1 / its measured step time).
  double num = 0, den = 0;
  for (std::size_t i = 0; i < streaming.size(); ++i) {
    const double w = 1.0 / (streaming[i]->measured * streaming[i]->measured);
    num += w * y_stream[i];
    den += w;
  }
  const double loaded_ns = std::max(0.0, num / den);
  FittedValue v{&calibration_key(kHitLatency), loaded_ns * 1e3, loaded_ns * 1e3, ""};
  if (loaded_ns < hit_ns) v.note = "below the base file's (idle) hit latency";
  out.values.push_back(v);
  const auto step_model = [&](const CalibrationPoint& p) {
    return loaded_ns + larger_block_bytes(p, metric(p, "step_bytes")) / port_bytes_per_ns;
  };
  std::vector<double> y, model;
  for (const CalibrationPoint* p : streaming) {
    y.push_back(p->measured);
    model.push_back(step_model(*p));
  }
  out.files = files_of(streaming);
  out.direct = residual_of(y, model);
  std::vector<double> y_resident, model_resident;
  for (const CalibrationPoint* p : resident) {
    y_resident.push_back(p->measured);
    model_resident.push_back(step_model(*p));
    out.notes.push_back(fmt::format("check (inside the L2, not fitted): {} measured {:.1f} ns per step, hit_latency + "
                                    "larger block / port = {:.1f} ns", p->source->display_name, p->measured, model_resident.back()));
  }
  if (!y_resident.empty()) {
    const Residual r = residual_of(y_resident, model_resident);
    out.notes.push_back(fmt::format("inside the L2: hit_latency + larger block / port against {} points: {:.1f}% MAPE", r.points,
                                    r.mape * 100));
  }
  return out;
}

}  // namespace

FitUnit kstep_fit() { return {"kstep", "kstep_load", fit}; }

}  // namespace tessera::app::calibration
