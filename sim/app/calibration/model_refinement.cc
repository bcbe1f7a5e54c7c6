#include "sim/app/calibration/model_refinement.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/run/run_workload.h"
#include "sim/app/sweep/sweep_runner.h"

namespace tessera::app::calibration {
namespace {

constexpr int kMaxIterations = 8;
constexpr double kRelativeStep = 0.05;       // the nudge of a parameter for its Jacobian column
constexpr double kMinTimeStepNs = 5.0;       // ... at least this for a time (a 0 ns latency still moves),
constexpr double kMinTimeStepShare = 0.01;   // and at least this share of the shortest measured time, so
                                             // that a latency under a long transfer visibly moves it
constexpr double kNoEffect = 1e-6;           // a nudge that moves no prediction by 1 ppm: no effect
constexpr double kEnoughProgress = 1e-6;     // stop when the sum of squares falls by less than this share

using Parameters = std::vector<double>;

// The figure of a microbenchmark run that predicts a measured quantity.
std::optional<double> tessera_figure(const run::RunResult& result, measured::TesseraFigure figure) {
  const std::optional<workloads::Measurement>& m = result.result.measurement;
  if (!m) return std::nullopt;
  switch (figure) {
    case measured::TesseraFigure::kTimedNs: return static_cast<double>(m->timed_ps) / 1e3;
    case measured::TesseraFigure::kLatencyNs: return m->latency_ns;
    case measured::TesseraFigure::kNone: return std::nullopt;
  }
  return std::nullopt;
}

// The predictions of every (system, point) pair, all run at once.
std::vector<std::vector<double>> predict_systems(const std::vector<models::SystemSpec>& systems,
                                                 const std::vector<const CalibrationPoint*>& points,
                                                 const RefineOptions& refine) {
  const std::size_t n = points.size();
  std::vector<std::vector<double>> out(systems.size(), std::vector<double>(n, 0.0));
  std::vector<std::string> errors(systems.size() * n);
  sweep::run_parallel(systems.size() * n, refine.jobs, [&](std::size_t task) {
    const std::size_t s = task / n;
    const std::size_t i = task % n;
    const CalibrationPoint& p = *points[i];
    try {
      run::RunSpec spec = *p.run;
      spec.system = systems[s];
      spec.options.max_wall = refine.max_wall;
      const run::RunResult result = run::run_workload(spec);
      if (!result.result.complete) {
        errors[task] = fmt::format("the run stopped before the end ({})", sim::to_string(result.result.stop_reason));
      } else if (const std::optional<double> figure = tessera_figure(result, p.quantity->tessera_figure)) {
        out[s][i] = *figure;
      } else {
        errors[task] = fmt::format("Tessera's run has no {}", measured::name_of(p.quantity->tessera_figure));
      }
    } catch (const std::exception& e) {
      errors[task] = e.what();
    }
  });
  for (std::size_t task = 0; task < errors.size(); ++task) {
    if (!errors[task].empty()) {
      throw std::runtime_error(fmt::format("Tessera could not run {}: {}", points[task % n]->source->display_name, errors[task]));
    }
  }
  return out;
}

models::SystemSpec with_parameters(const models::SystemSpec& base, const std::vector<const CalibrationKey*>& keys,
                                   const Parameters& p) {
  models::SystemSpec s = base;
  for (std::size_t j = 0; j < keys.size(); ++j) keys[j]->set(s, from_linear_parameter(*keys[j], p[j]));
  return s;
}

double lower_bound(const CalibrationKey& key) { return key.unit == KeyUnit::kBandwidth ? 1e-9 : 0.0; }

double step_of(const CalibrationKey& key, double parameter, double shortest_measured_ns) {
  const double relative = kRelativeStep * std::abs(parameter);
  if (key.unit != KeyUnit::kTime) return std::max(relative, 1e-12);
  return std::max({relative, kMinTimeStepNs, kMinTimeStepShare * shortest_measured_ns});
}

double sum_of_squares(const std::vector<const CalibrationPoint*>& points, const std::vector<double>& predicted) {
  double s = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double r = (points[i]->measured - predicted[i]) / points[i]->measured;
    s += r * r;
  }
  return s;
}

// Gauss-Newton from `start`; returns the parameters and, per key, whether any prediction depends on it.
std::pair<Parameters, std::vector<bool>> gauss_newton(const FitInputs& inputs, const std::vector<const CalibrationKey*>& keys,
                                                      Parameters p, const std::vector<const CalibrationPoint*>& points) {
  const std::size_t m = keys.size();
  const auto n = static_cast<Eigen::Index>(points.size());
  std::vector<bool> has_effect(m, false);
  double shortest_ns = points.front()->measured;
  for (const CalibrationPoint* q : points) shortest_ns = std::min(shortest_ns, q->measured);
  Eigen::VectorXd weights(n);
  for (Eigen::Index i = 0; i < n; ++i) weights(i) = 1.0 / std::abs(points[static_cast<std::size_t>(i)]->measured);
  std::vector<double> current = predict_systems({with_parameters(inputs.system, keys, p)}, points, inputs.refine)[0];
  double current_ss = sum_of_squares(points, current);
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    // The Jacobian, one nudged run of every point per key.
    std::vector<models::SystemSpec> nudged;
    std::vector<double> steps(m);
    for (std::size_t j = 0; j < m; ++j) {
      Parameters q = p;
      steps[j] = step_of(*keys[j], p[j], shortest_ns);
      q[j] += steps[j];
      nudged.push_back(with_parameters(inputs.system, keys, q));
    }
    const auto moved = predict_systems(nudged, points, inputs.refine);
    std::vector<std::size_t> active;
    for (std::size_t j = 0; j < m; ++j) {
      double change = 0;
      for (Eigen::Index i = 0; i < n; ++i) {
        change = std::max(change, std::abs(moved[j][static_cast<std::size_t>(i)] - current[static_cast<std::size_t>(i)]) * weights(i));
      }
      if (change > kNoEffect) {
        active.push_back(j);
        has_effect[j] = true;
      }
    }
    if (active.empty()) break;
    Eigen::MatrixXd jacobian(n, static_cast<Eigen::Index>(active.size()));
    Eigen::VectorXd residual(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      residual(i) = points[ui]->measured - current[ui];
      for (std::size_t a = 0; a < active.size(); ++a) {
        const std::size_t j = active[a];
        jacobian(i, static_cast<Eigen::Index>(a)) = (moved[j][ui] - current[ui]) / steps[j];
      }
    }
    const Eigen::VectorXd delta = solve_weighted_least_squares(jacobian, residual, weights).coefficients;
    // Halve the step until the sum of squares falls (the model is only piecewise linear).
    bool improved = false;
    for (double scale = 1.0; scale >= 1.0 / 16 && !improved; scale /= 2) {
      Parameters q = p;
      for (std::size_t a = 0; a < active.size(); ++a) {
        const std::size_t j = active[a];
        q[j] = std::max(lower_bound(*keys[j]), p[j] + scale * delta(static_cast<Eigen::Index>(a)));
      }
      std::vector<double> predicted = predict_systems({with_parameters(inputs.system, keys, q)}, points, inputs.refine)[0];
      const double ss = sum_of_squares(points, predicted);
      if (ss < current_ss) {
        improved = true;
        const bool converged = current_ss - ss <= kEnoughProgress * current_ss;
        p = std::move(q);
        current = std::move(predicted);
        current_ss = ss;
        if (converged) return {p, has_effect};
      }
    }
    if (!improved) break;
  }
  return {p, has_effect};
}

}  // namespace

std::vector<double> predict_points(const models::SystemSpec& system, const std::vector<const CalibrationPoint*>& points,
                                   const RefineOptions& refine) {
  return predict_systems({system}, points, refine)[0];
}

void refine_and_check(const FitInputs& inputs, const std::vector<const CalibrationPoint*>& points, FitOutcome& outcome) {
  std::vector<const CalibrationKey*> keys;
  Parameters start;
  for (const FittedValue& v : outcome.values) {
    keys.push_back(v.key);
    start.push_back(to_linear_parameter(*v.key, v.direct));
  }
  if (inputs.refine.enabled && !keys.empty() && !points.empty()) {
    const auto [refined, has_effect] = gauss_newton(inputs, keys, start, points);
    for (std::size_t j = 0; j < keys.size(); ++j) {
      FittedValue& v = outcome.values[j];
      if (!has_effect[j]) {
        v.value = v.direct;
        v.note = "kept at the direct value: Tessera's predictions of these points do not depend on it";
        continue;
      }
      v.value = from_linear_parameter(*keys[j], refined[j]);
    }
    // A refined value far from the measured line means that another limit of Tessera's model binds at these
    // points (the key only has to get out of the way): the direct value is the honest one to write.
    constexpr double kMaxRefinementFactor = 2.0;
    for (FittedValue& v : outcome.values) {
      if (v.direct > 0 && (v.value > v.direct * kMaxRefinementFactor || v.value < v.direct / kMaxRefinementFactor)) {
        v.note = fmt::format("refinement moved it {:.3g}x from the direct fit (another limit of the model binds at "
                             "these points): kept the direct value", v.value / v.direct);
        v.value = v.direct;
      }
    }
  }
  // What the file will hold (rounded as `set` rounds), checked against the measurements.
  models::SystemSpec final_system = inputs.system;
  for (const FittedValue& v : outcome.values) v.key->set(final_system, v.value);
  if (points.empty()) return;
  for (const CalibrationPoint* p : points) outcome.simulated_points.push_back(static_cast<std::size_t>(p - inputs.points.data()));
  std::vector<double> measured;
  for (const CalibrationPoint* p : points) measured.push_back(p->measured);
  outcome.tessera = residual_of(measured, predict_points(final_system, points, inputs.refine));
}

}  // namespace tessera::app::calibration
