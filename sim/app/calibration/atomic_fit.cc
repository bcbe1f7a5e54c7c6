// atomics: atomic_add and atomic_xchg (each workgroup issues dependent atomics on a flag; the
// time per atomic is its latency). Tessera has one latency for both operations.
//   on the GPU's own memory:  latency = local_latency
//   on a peer's memory:       latency = remote_latency + link round trip (from the links fitted before)
// Each key is the weighted mean of its points, so the fit is exact when the data agree.
#include <algorithm>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/calibration/system_figures.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kLocal = "gpu.atomics.local_latency";
constexpr const char* kRemote = "gpu.atomics.remote_latency";

bool is_local(const models::SystemSpec& system, const workloads::microbench::MicrobenchParams& mb) {
  return system.num_gpus == 1 || mb.peer == mb.gpu;  // one GPU: the flags live in its own memory
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "atomics";
  out.model = "latency = local_latency (own memory) or remote_latency + link round trip (a peer's)";
  out.unit = "ns";
  const auto points = points_of(in, {"atomic_add", "atomic_xchg"});
  std::vector<double> local_y, remote_y, remote_rtt_ns;
  for (const CalibrationPoint* p : points) {
    const auto& mb = std::get<workloads::microbench::MicrobenchParams>(p->run->workload);
    if (is_local(in.system, mb)) {
      local_y.push_back(p->measured);
    } else {
      remote_y.push_back(p->measured);
      remote_rtt_ns.push_back(link_round_trip_ps(in.system, mb.gpu, mb.peer) / 1e3);
    }
  }
  std::vector<double> y, model;
  if (local_y.empty()) {
    out.not_fitted.push_back({kLocal, "no passed atomic_add or atomic_xchg results on the GPU's own memory"});
  } else {
    const double local_ns = fit_proportional(std::vector<double>(local_y.size(), 1.0), local_y);
    out.values.push_back({&calibration_key(kLocal), local_ns * 1e3, local_ns * 1e3, ""});
    y.insert(y.end(), local_y.begin(), local_y.end());
    model.insert(model.end(), local_y.size(), local_ns);
  }
  if (remote_y.empty()) {
    out.not_fitted.push_back({kRemote, "no passed atomic_add or atomic_xchg results on a peer's memory"});
  } else {
    std::vector<double> beyond;
    for (std::size_t i = 0; i < remote_y.size(); ++i) beyond.push_back(remote_y[i] - remote_rtt_ns[i]);
    const double remote_ns = fit_proportional(std::vector<double>(beyond.size(), 1.0), beyond);
    FittedValue remote{&calibration_key(kRemote), std::max(0.0, remote_ns) * 1e3, std::max(0.0, remote_ns) * 1e3, ""};
    if (remote_ns < 0) remote.note = "below the link round trip: started at 0";
    out.values.push_back(remote);
    y.insert(y.end(), remote_y.begin(), remote_y.end());
    for (double rtt : remote_rtt_ns) model.push_back(remote_ns + rtt);
  }
  if (points.empty()) return out;
  out.files = files_of(points);
  out.direct = residual_of(y, model);
  refine_and_check(in, points, out);
  return out;
}

}  // namespace

FitUnit atomic_fit() { return {"atomics", "atomic_add, atomic_xchg", fit}; }

}  // namespace tessera::app::calibration
