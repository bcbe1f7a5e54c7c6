// collective_call: the host's CPU time per GPU of one collective-library call, from the
// library's small collectives (cases nccl_*, docs/kernels.md "Collectives").
//   time per collective = ranks x host.collective_call      (sizes of 64 KiB or less)
//   value = median over those points of (time per collective / ranks)
//
// Why this model. The suite runs the library as nccl-tests runs several GPUs from one process:
// one host thread issues every rank's call of a collective (ncclGroupStart, one call per GPU,
// ncclGroupEnd), 20 collectives back to back per sample. When the GPUs finish a collective
// faster than the thread issues the next, the time per collective is the thread's: R calls of
// the library's enqueue and launch. Up to 64 KiB the GPUs' own work is a few microseconds (LL's
// flags travel with the data; a handful of link latencies and one kernel per rank), while NCCL
// takes 13-26 us on two H200s and 22-54 us on four whatever the size: the host. The fit checks
// that reading on Tessera's own model: it runs every point with `host: none` (the GPU-side time,
// the earlier fits applied) and says in the file how far below ranks x the value that is; then
// with `host: one_thread` and the value, Tessera's residual against the points. Above 64 KiB the
// GPUs' work grows into the measured time and the points are left out, and so are the points
// with the Simple or LL128 protocol forced: measured on the GPU alone (NCCL's kernel times,
// collective_kernel_fit.cc), their kernels take 10-19 us even at 8 KiB, as long as the host's
// calls, so their time is not the host's (LL's take 4-6 us). The median, not a mean or
// a least-squares line: the points scatter by up to 1.6x from run to run (the host's jitter), and
// one slow sample of a few must not move the value.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/library_collective_runs.h"
#include "sim/app/validation/collective_cases.h"
#include "sim/config/units.h"

namespace tessera::app::calibration {
namespace {

constexpr const char* kKey = "host.collective_call";
// The largest size read: the GPU-side time of a collective is a few microseconds up to here.
constexpr std::uint64_t kMaxBytes = 64 * 1024;

using measured::TesseraFigure;
using validation::LibraryCollective;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Point {
  const CalibrationPoint* point = nullptr;
  LibraryCollective collective;
};

// Tessera's time per collective (ns) of each point with `host` ("none" or "one_thread") on `system`.
std::vector<double> tessera_times(const FitInputs& in, const models::SystemSpec& system, const std::vector<Point>& points,
                                  const std::string& host) {
  const std::string system_argument = in.system_argument.empty() ? system.name : std::string(in.system_argument);
  std::vector<run::RunSpec> runs;
  for (const Point& p : points) {
    const nlohmann::json workload =
        validation::library_collective_workload(p.collective, host, validation::validation_iterations(p.collective.size_bytes));
    run::RunSpec spec = validation::library_collective_run(*p.point->source, system_argument, workload);
    spec.system = system;  // with the earlier fits (and this one's value)
    spec.options.max_wall = in.refine.max_wall;
    runs.push_back(std::move(spec));
  }
  return run_library_collectives(
      std::move(runs), in.refine.jobs,
      [](const workloads::WorkloadResult& w) {
        if (!w.collective) throw std::runtime_error("the run reported no collective figures");
        return w.collective->time_us * 1e3;
      },
      [&](std::size_t i) { return fmt::format("{} (host: {})", points[i].point->source->display_name, host); });
}

std::string us(double ns) { return fmt::format("{:.2f} us", ns / 1e3); }

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "collective_call";
  out.model = "time per collective = ranks x host.collective_call (one host thread issues every GPU's call; up to 64 KiB the "
              "GPUs wait for it); value = the median of time / ranks";
  out.unit = "ns";
  std::vector<Point> points;
  std::size_t larger = 0, slow_kernels = 0;
  for (const CalibrationPoint& p : in.points) {
    if (!validation::is_library_collective(*p.source)) continue;
    LibraryCollective c = validation::read_library_collective(*p.source);
    if (c.size_bytes > kMaxBytes) {
      ++larger;
      continue;
    }
    if (c.protocol == "simple" || c.protocol == "ll128") {
      ++slow_kernels;
      continue;
    }
    points.push_back({&p, std::move(c)});
  }
  if (points.empty()) {
    out.not_fitted.push_back({kKey, larger == 0 ? "no passed collective-library results (cases nccl_*)"
                                                : fmt::format("no collective-library result of {} or less ({} larger ones: the GPUs' "
                                                              "work shows there)",
                                                              sim::config::format_bytes(kMaxBytes), larger)});
    return out;
  }
  std::vector<const CalibrationPoint*> used;
  std::vector<double> measured, per_call;
  std::uint64_t smallest = points.front().collective.size_bytes, largest = smallest;
  for (const Point& p : points) {
    used.push_back(p.point);
    measured.push_back(p.point->measured);
    per_call.push_back(p.point->measured / p.collective.ranks);
    smallest = std::min(smallest, p.collective.size_bytes);
    largest = std::max(largest, p.collective.size_bytes);
  }
  out.files = files_of(used);
  const double value_ns = median(per_call);
  std::vector<double> model;
  for (const Point& p : points) model.push_back(p.collective.ranks * value_ns);
  out.direct = residual_of(measured, model);
  const CalibrationKey& key = calibration_key(kKey);
  out.values.push_back({&key, value_ns * 1e3, value_ns * 1e3, ""});
  out.notes.push_back(fmt::format("points: the collective-library results of {} to {} (time per collective: nccl-tests' time, "
                                  "timing.mean_ns); {} larger one(s) left out: the GPUs' work shows there; {} with the Simple "
                                  "or LL128 protocol forced left out: their kernels alone take 10-19 us on the GPU (NCCL's "
                                  "kernel times), as long as the host's calls",
                                  sim::config::format_bytes(smallest), sim::config::format_bytes(largest), larger, slow_kernels));
  out.notes.push_back(fmt::format("time / ranks over the points: min {}, median {}, max {}", us(*std::min_element(per_call.begin(), per_call.end())),
                                  us(value_ns), us(*std::max_element(per_call.begin(), per_call.end()))));

  // Tessera's own reading of these points: the GPU-side time alone, then the time with the host.
  models::SystemSpec system = in.system;
  key.set(system, value_ns * 1e3);
  const std::vector<double> gpu_side = tessera_times(in, system, points, "none");
  std::size_t below = 0;
  double most_share = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double host_ns = points[i].collective.ranks * key.get(system) / 1e3;
    below += gpu_side[i] < host_ns ? 1 : 0;
    most_share = std::max(most_share, gpu_side[i] / host_ns);
  }
  out.notes.push_back(fmt::format("Tessera's GPU-side time of these points (host: none: each collective's launch and kernels "
                                  "alone, on this system): {} to {} per collective, "
                                  "below ranks x the value at {} of {} points (at most {:.0f}% of it): the host's calls set the pace",
                                  us(*std::min_element(gpu_side.begin(), gpu_side.end())),
                                  us(*std::max_element(gpu_side.begin(), gpu_side.end())), below, points.size(), 100 * most_share));
  out.tessera = residual_of(measured, tessera_times(in, system, points, "one_thread"));
  return out;
}

}  // namespace

const measured::CaseQuantity& library_collective_quantity() {
  // The mean time of one collective (timing.mean_ns = metrics.time_us, nccl-tests' time); Tessera
  // has no microbenchmark for it: the fit runs kind collective itself.
  static const measured::CaseQuantity quantity{"nccl_*", measured::Quantity::kTimeNs, {}, 1.0, {}, 1.0, {}, TesseraFigure::kNone};
  return quantity;
}

FitUnit collective_call_fit() { return {"collective_call", "nccl_* (64 KiB or less)", fit}; }

}  // namespace tessera::app::calibration
