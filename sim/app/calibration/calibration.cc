#include "sim/app/calibration/calibration.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "models/system/system_loader.h"
#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/model_refinement.h"
#include "sim/app/measured/case_run_spec.h"
#include "sim/app/run/run_config_loader.h"
#include "sim/app/sweep/point_config.h"
#include "sim/app/validation/collective_cases.h"
#include "workloads/microbench/microbench_params.h"

namespace tessera::app::calibration {
namespace {

// The points of every usable microbenchmark result a fit reads and Tessera can run on `system`.
void prepare_points(const measured::MeasuredSet& set, const std::string& system_argument, CalibrationResult& r) {
  for (const measured::MeasuredCase* c : set.microbenchmarks()) {
    if (validation::is_library_collective(*c)) {
      // The collective library's results: collective_call reads them and runs Tessera's model of
      // the library itself (the point has no microbenchmark run).
      const std::uint32_t ranks = validation::read_library_collective(*c).ranks;
      if (ranks > r.base.num_gpus) {
        r.unused.push_back({c->display_name, fmt::format("ran on {} GPUs; the system has {}", ranks, r.base.num_gpus)});
        continue;
      }
      r.points.push_back(CalibrationPoint{c, &library_collective_quantity(), c->timing.mean_ns, std::nullopt});
      continue;
    }
    const measured::CaseQuantity* quantity = measured::case_quantity(c->case_name);
    if (quantity == nullptr) {
      r.unused.push_back({c->display_name, fmt::format("no fit reads case '{}'", c->case_name)});
      continue;
    }
    CalibrationPoint p{c, quantity, 0.0, std::nullopt};
    if (quantity->tessera_figure != measured::TesseraFigure::kNone) {
      if (c->tessera_ranks > r.base.num_gpus) {
        r.unused.push_back({c->display_name, fmt::format("ran on {} GPUs; the system has {}", c->tessera_ranks, r.base.num_gpus)});
        continue;
      }
      p.run = measured::case_run_spec(*c, system_argument);
      if (p.run->workload.params_if<workloads::microbench::MicrobenchParams>() == nullptr) {
        r.unused.push_back({c->display_name, fmt::format("tessera.workload is a '{}' workload, not a microbenchmark", p.run->workload.kind())});
        continue;
      }
    }
    p.measured = measured::measured_value(*c, *quantity);
    r.points.push_back(std::move(p));
  }
}

// The used results in path order, then the used kernel-time and kernel-boundary files (their display names are
// their paths, as the measured folder was given) in name order.
std::string digest_of(const std::vector<CalibrationPoint>& points, const std::set<std::string>& document_files) {
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  for (const CalibrationPoint& p : points) files.emplace_back(p.source->display_name, p.source->file);
  for (const std::string& f : document_files) files.emplace_back(f, f);
  std::string all;
  for (const auto& [name, path] : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    all += name + "\n" + text.str() + "\n";
  }
  return sweep::fnv1a_hex(all);
}

}  // namespace

std::size_t CalibrationResult::used_results() const {
  std::set<std::string> files;
  for (const FitOutcome& f : fits) files.insert(f.files.begin(), f.files.end());
  return files.size();
}

std::size_t calibration_steps() { return fit_units().size() + 1; }

CalibrationResult calibrate(const measured::MeasuredSet& set, const std::string& system, const RefineOptions& options,
                            const std::function<void(std::string_view step)>& step_begun) {
  const auto begin_step = [&](std::string_view name) {
    if (step_begun) step_begun(name);
  };
  CalibrationResult r;
  r.system_argument = system;
  r.base = models::load_system_spec(system);
  r.skipped = set.skipped;
  r.pattern_results = set.patterns().size();
  prepare_points(set, system, r);
  models::SystemSpec current = r.base;
  for (const FitUnit& unit : fit_units()) {
    begin_step(unit.name);
    FitOutcome outcome = unit.fit(FitInputs{current, r.points, options, system, &set.library_kernel_times, &set.kernel_boundaries});
    for (const FittedValue& v : outcome.values) v.key->set(current, v.value);
    for (const FittedKernelEfficiency& k : outcome.kernel_efficiency) {
      auto& list = current.gpu.compute.kernel_efficiency;
      std::erase_if(list, [&](const models::KernelEfficiency& e) { return e.kernel == k.entry.kernel && e.dtype == k.entry.dtype; });
      list.push_back(k.entry);
    }
    r.fits.push_back(std::move(outcome));
  }
  r.calibrated = current;
  // Each fit's residual again, with every fitted value: a later fit may move a key that an
  // earlier fit's points depend on, and the file holds them all.
  begin_step("residuals");
  for (FitOutcome& f : r.fits) {
    if (f.simulated_points.empty()) continue;
    std::vector<const CalibrationPoint*> points;
    std::vector<double> measured;
    for (std::size_t i : f.simulated_points) {
      points.push_back(&r.points[i]);
      measured.push_back(r.points[i].measured);
    }
    f.tessera = residual_of(measured, predict_points(r.calibrated, points, options));
  }
  // Points that every fit left out (too small, too large) are in the fits' notes; what is
  // recorded here is what the digest and the device list cover: the results a fit used.
  std::set<std::string> used;
  for (const FitOutcome& f : r.fits) used.insert(f.files.begin(), f.files.end());
  std::vector<CalibrationPoint> used_points;
  std::set<std::string> devices;
  for (const CalibrationPoint& p : r.points) {
    if (used.count(p.source->display_name) == 0) continue;
    used_points.push_back(p);
    if (!p.source->device.empty()) devices.insert(p.source->device);
  }
  std::set<std::string> document_files;
  for (const measured::LibraryKernelTime& t : set.library_kernel_times) {
    if (used.count(t.display_name) == 0) continue;
    document_files.insert(t.display_name);
    devices.insert(t.device);
  }
  for (const measured::KernelBoundaries& b : set.kernel_boundaries) {
    if (used.count(b.display_name) == 0) continue;
    document_files.insert(b.display_name);
    devices.insert(b.device);
  }
  r.devices.assign(devices.begin(), devices.end());
  r.data_digest = digest_of(used_points, document_files);
  return r;
}

}  // namespace tessera::app::calibration
