// atomics: atomic_add and atomic_xchg (each workgroup issues dependent atomics on a flag; the
// time per atomic is its latency). Tessera has one latency for both operations.
//   on the GPU's own memory:  latency = local_latency
//   on a peer's memory:       latency = remote_latency + link round trip
// Where one machine measured atomics on both its own and a peer's memory, their difference is the
// link round trip: the atomic itself runs in the L2 of the memory's owner either way, so
// remote_latency is set to local_latency and interconnect.link_latency is solved from
//   remote - local = round trip at zero link latency + crossings x link_latency.
// This is the link latency's only identifiable source: the intercepts of bulk transfers mix
// ramp-up and drain with it (the link fit says so). Without such a pair, remote_latency is what
// the remote points leave beyond the link round trip the system already implies.
// Each key is the weighted mean of its points, so the fit is exact when the data agree.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/calibration/system_figures.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kLocal = "gpu.atomics.local_latency";
constexpr const char* kRemote = "gpu.atomics.remote_latency";
constexpr const char* kLinkLatency = "interconnect.link_latency";

bool is_local(const models::SystemSpec& system, const workloads::microbench::MicrobenchParams& mb) {
  return system.num_gpus == 1 || mb.peer == mb.gpu;  // one GPU: the flags live in its own memory
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// The atomics one device (a result's `device`) measured, in ns.
struct DeviceAtomics {
  std::vector<double> local, remote;
};

// The measured remote-minus-local latency of the devices that measured both, each device's
// difference weighted by its remote points; nullopt when no device measured both.
std::optional<double> same_device_difference(const std::map<std::string, DeviceAtomics>& by_device) {
  double sum = 0, weight = 0;
  for (const auto& [device, d] : by_device) {
    if (d.local.empty() || d.remote.empty()) continue;
    const double w = static_cast<double>(d.remote.size());
    sum += w * (mean_of(d.remote) - mean_of(d.local));
    weight += w;
  }
  if (weight == 0) return std::nullopt;
  return sum / weight;
}

// The link round trip between gpu and home, in ps, at the given link latency.
double round_trip_at(const models::SystemSpec& system, std::uint32_t gpu, std::uint32_t home, sim::Tick link_latency_ps) {
  models::SystemSpec s = system;
  s.interconnect.link_latency_ps = link_latency_ps;
  return link_round_trip_ps(s, gpu, home);
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "atomics";
  out.model = "latency = local_latency (own memory) or remote_latency + link round trip (a peer's)";
  out.unit = "ns";
  const auto points = points_of(in, {"atomic_add", "atomic_xchg"});
  std::vector<double> local_y, remote_y;
  std::vector<const workloads::microbench::MicrobenchParams*> remote_mb;
  std::map<std::string, DeviceAtomics> by_device;
  for (const CalibrationPoint* p : points) {
    const auto& mb = p->run->workload.params<workloads::microbench::MicrobenchParams>();
    if (is_local(in.system, mb)) {
      local_y.push_back(p->measured);
      by_device[p->source->device].local.push_back(p->measured);
    } else {
      remote_y.push_back(p->measured);
      remote_mb.push_back(&mb);
      by_device[p->source->device].remote.push_back(p->measured);
    }
  }
  std::vector<double> y, model;
  double local_ns = 0;
  if (local_y.empty()) {
    out.not_fitted.push_back({kLocal, "no passed atomic_add or atomic_xchg results on the GPU's own memory"});
  } else {
    local_ns = fit_proportional(std::vector<double>(local_y.size(), 1.0), local_y);
    out.values.push_back({&calibration_key(kLocal), local_ns * 1e3, local_ns * 1e3, ""});
    y.insert(y.end(), local_y.begin(), local_y.end());
    model.insert(model.end(), local_y.size(), local_ns);
  }
  std::optional<double> difference_ns = same_device_difference(by_device);
  // Link crossings on the remote points' round trip (ns of round trip per ns of link latency; the
  // first point's route stands for all: one peer on the systems calibrated here).
  double crossings = 0, rtt0_ns = 0;
  if (!remote_mb.empty()) {
    const auto& mb = *remote_mb.front();
    rtt0_ns = round_trip_at(in.system, mb.gpu, mb.peer, 0) / 1e3;
    crossings = round_trip_at(in.system, mb.gpu, mb.peer, 1000) / 1e3 - rtt0_ns;
  }
  if (!(crossings > 0)) difference_ns.reset();  // no link on the route: the difference says nothing of it
  if (remote_y.empty()) {
    out.not_fitted.push_back({kRemote, "no passed atomic_add or atomic_xchg results on a peer's memory"});
    out.not_fitted.push_back({kLinkLatency, in.system.num_gpus < 2 ? "the system has one GPU"
                                                                   : "no passed atomic_add or atomic_xchg results on a peer's memory"});
  } else if (difference_ns) {
    const double link_ns = (*difference_ns - rtt0_ns) / crossings;
    FittedValue link{&calibration_key(kLinkLatency), std::max(0.0, link_ns) * 1e3, std::max(0.0, link_ns) * 1e3,
                     fmt::format("remote - local atomic on one device: {:.1f} ns = {:.1f} ns at zero link latency + {:g} crossings",
                                 *difference_ns, rtt0_ns, crossings)};
    if (link_ns < 0) link.note = "the remote atomics are no slower than the local ones beyond the link transfer: started at 0";
    out.values.push_back(link);
    const sim::Tick fitted_link_ps = static_cast<sim::Tick>(std::llround(std::max(0.0, link_ns) * 1e3));
    for (std::size_t i = 0; i < remote_y.size(); ++i) {
      y.push_back(remote_y[i]);
      model.push_back(local_ns + round_trip_at(in.system, remote_mb[i]->gpu, remote_mb[i]->peer, fitted_link_ps) / 1e3);
    }
  } else {
    std::vector<double> beyond, rtt_ns;
    for (std::size_t i = 0; i < remote_y.size(); ++i) {
      rtt_ns.push_back(link_round_trip_ps(in.system, remote_mb[i]->gpu, remote_mb[i]->peer) / 1e3);
      beyond.push_back(remote_y[i] - rtt_ns.back());
    }
    const double remote_ns = fit_proportional(std::vector<double>(beyond.size(), 1.0), beyond);
    FittedValue remote{&calibration_key(kRemote), std::max(0.0, remote_ns) * 1e3, std::max(0.0, remote_ns) * 1e3, ""};
    if (remote_ns < 0) remote.note = "below the link round trip: started at 0";
    out.values.push_back(remote);
    out.not_fitted.push_back({kLinkLatency, "no device measured atomics on both its own and a peer's memory"});
    y.insert(y.end(), remote_y.begin(), remote_y.end());
    for (double rtt : rtt_ns) model.push_back(remote_ns + rtt);
  }
  if (points.empty()) return out;
  out.files = files_of(points);
  out.direct = residual_of(y, model);
  if (!difference_ns || remote_y.empty()) {
    refine_and_check(in, points, out);
    return out;
  }
  // remote_latency is tied to local_latency, not a free key (with the link latency it would be
  // collinear on the remote points): refine the other two on a system that already has it.
  models::SystemSpec tied = in.system;
  calibration_key(kRemote).set(tied, local_ns * 1e3);
  refine_and_check(FitInputs{tied, in.points, in.refine}, points, out);
  const auto local = std::find_if(out.values.begin(), out.values.end(), [](const FittedValue& v) { return v.key->path == kLocal; });
  out.values.push_back({&calibration_key(kRemote), local->direct, local->value, "= local_latency: the atomic runs in the owner's L2 either way"});
  return out;
}

}  // namespace

FitUnit atomic_fit() { return {"atomics", "atomic_add, atomic_xchg", fit}; }

}  // namespace tessera::app::calibration
