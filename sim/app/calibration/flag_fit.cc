// flag: flag_pingpong (two GPUs bounce a flag; each release-stores into the other's memory and
// spins on its own). In Tessera one way is about
//   latency = (remote_latency + link round trip) / 2 + local_latency / 2 + poll_interval / 2
// (the store is performed half way through its access; the waiter sees it after, on average,
// half a poll period and the return half of its read). Solved for poll_interval with the
// atomics and links fitted before; the refinement on Tessera's own ping-pong corrects the
// "on average".
#include <algorithm>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/calibration/system_figures.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kPoll = "gpu.atomics.poll_interval";

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "flag";
  out.model = "one way = (remote_latency + link round trip) / 2 + local_latency / 2 + poll_interval / 2";
  out.unit = "ns";
  const auto points = points_of(in, {"flag_pingpong"});
  if (points.empty() || in.system.num_gpus < 2) {
    out.not_fitted = {{kPoll, in.system.num_gpus < 2 ? "the system has one GPU" : "no passed flag_pingpong results"}};
    return out;
  }
  out.files = files_of(points);
  const auto& atomics = in.system.gpu.atomics;
  const double local_ns = static_cast<double>(atomics.local_latency_ps) / 1e3;
  std::vector<double> y, fixed_ns;
  for (const CalibrationPoint* p : points) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    const double remote_ns = (static_cast<double>(atomics.remote_latency_ps) + link_round_trip_ps(in.system, mb.gpu, mb.peer)) / 1e3;
    y.push_back(p->measured);
    fixed_ns.push_back(remote_ns / 2 + local_ns / 2);
  }
  std::vector<double> twice_beyond;
  for (std::size_t i = 0; i < y.size(); ++i) twice_beyond.push_back(2 * (y[i] - fixed_ns[i]));
  const double poll_ns = fit_proportional(std::vector<double>(y.size(), 1.0), twice_beyond);
  std::vector<double> model;
  for (double f : fixed_ns) model.push_back(f + poll_ns / 2);
  out.direct = residual_of(y, model);
  FittedValue poll{&calibration_key(kPoll), std::max(0.0, poll_ns) * 1e3, std::max(0.0, poll_ns) * 1e3, ""};
  if (poll_ns < 0) poll.note = "the ping-pong is faster than the atomics imply: started at 0";
  out.values.push_back(poll);
  refine_and_check(in, points, out);
  if (out.values[0].value <= static_cast<double>(atomics.local_latency_ps) && out.values[0].note.empty()) {
    out.values[0].note = fmt::format("at or below local_latency ({:.1f} ns): spin reads are then paced by their latency", local_ns);
  }
  return out;
}

}  // namespace

FitUnit flag_fit() { return {"flag", "flag_pingpong", fit}; }

}  // namespace tessera::app::calibration
