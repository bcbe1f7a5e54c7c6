#include "sim/app/calibration/linear_fit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera::app::calibration {

Residual residual_of(const std::vector<double>& measured, const std::vector<double>& model) {
  Residual r;
  r.points = measured.size();
  if (measured.empty()) return r;
  double sq = 0, rel_sq = 0, abs_rel = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double e = measured[i] - model[i];
    sq += e * e;
    const double rel = measured[i] != 0 ? e / measured[i] : 0.0;
    rel_sq += rel * rel;
    abs_rel += std::abs(rel);
  }
  const auto n = static_cast<double>(measured.size());
  r.rms = std::sqrt(sq / n);
  r.relative_rms = std::sqrt(rel_sq / n);
  r.mape = abs_rel / n;
  return r;
}

WeightedSolution solve_weighted_least_squares(const Eigen::MatrixXd& design, const Eigen::VectorXd& rhs,
                                              const Eigen::VectorXd& weights) {
  if (design.rows() != rhs.size() || design.rows() != weights.size() || design.rows() == 0) {
    throw std::invalid_argument("least squares: no points, or the rows differ");
  }
  Eigen::MatrixXd a = weights.asDiagonal() * design;
  const Eigen::VectorXd b = weights.cwiseProduct(rhs);
  Eigen::VectorXd scale(a.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double norm = a.col(j).norm();
    scale(j) = norm > 0 ? norm : 1.0;
    a.col(j) /= scale(j);
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  return WeightedSolution{qr.solve(b).cwiseQuotient(scale), qr.rank()};
}

LinearFit fit_relative_least_squares(const Eigen::MatrixXd& design, const Eigen::VectorXd& y) {
  Eigen::VectorXd weights(y.size());
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    if (y(i) == 0) throw std::invalid_argument("least squares: a measured value is 0");
    weights(i) = 1.0 / std::abs(y(i));
  }
  const WeightedSolution solution = solve_weighted_least_squares(design, y, weights);
  LinearFit fit;
  fit.rank = solution.rank;
  fit.coefficients = solution.coefficients;
  const Eigen::VectorXd model = design * fit.coefficients;
  fit.model.assign(model.data(), model.data() + model.size());
  fit.residual = residual_of(std::vector<double>(y.data(), y.data() + y.size()), fit.model);
  return fit;
}

Line fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  Eigen::MatrixXd design(static_cast<Eigen::Index>(x.size()), 2);
  Eigen::VectorXd values(static_cast<Eigen::Index>(y.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    design(static_cast<Eigen::Index>(i), 0) = 1.0;
    design(static_cast<Eigen::Index>(i), 1) = x[i];
    values(static_cast<Eigen::Index>(i)) = y[i];
  }
  const LinearFit fit = fit_relative_least_squares(design, values);
  return Line{fit.coefficients(0), fit.coefficients(1), fit.residual};
}

double fit_proportional(const std::vector<double>& x, const std::vector<double>& y) {
  Eigen::MatrixXd design(static_cast<Eigen::Index>(x.size()), 1);
  Eigen::VectorXd values(static_cast<Eigen::Index>(y.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    design(static_cast<Eigen::Index>(i), 0) = x[i];
    values(static_cast<Eigen::Index>(i)) = y[i];
  }
  return fit_relative_least_squares(design, values).coefficients(0);
}

std::size_t distinct_values(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return static_cast<std::size_t>(std::unique(x.begin(), x.end()) - x.begin());
}

bool spans(const std::vector<double>& x, double ratio) {
  if (x.empty()) return false;
  const auto [low, high] = std::minmax_element(x.begin(), x.end());
  return *low > 0 && *high >= ratio * *low;
}

}  // namespace tessera::app::calibration
