#pragma once
// Weighted linear least squares with Eigen: the one solver every fit uses. Each point is weighted
// by 1/|y| (relative residuals), so that a small size counts as much as a large one and the fit
// minimises the error a user sees in percent.
#include <cstddef>
#include <vector>

#include <Eigen/Dense>

namespace tessera::app::calibration {

// How far a model is from the points it was fitted to.
struct Residual {
  double rms = 0;           // sqrt(mean (y - model)^2), in the unit of y
  double relative_rms = 0;  // sqrt(mean ((y - model) / y)^2), a fraction
  double mape = 0;          // mean |y - model| / |y|, a fraction
  std::size_t points = 0;
};

Residual residual_of(const std::vector<double>& measured, const std::vector<double>& model);

struct LinearFit {
  Eigen::VectorXd coefficients;  // one per column of the design matrix
  std::vector<double> model;     // the fitted values, one per point
  Residual residual;
  Eigen::Index rank = 0;         // < columns: the data cannot separate some coefficients
};

// Minimises sum_i (w_i (rhs_i - X_i b))^2 with columns scaled to unit norm first, so that
// columns in very different units (bytes beside 1) are solved as accurately. `rank` says whether
// the data separate every coefficient.
struct WeightedSolution {
  Eigen::VectorXd coefficients;
  Eigen::Index rank = 0;
};
WeightedSolution solve_weighted_least_squares(const Eigen::MatrixXd& design, const Eigen::VectorXd& rhs,
                                              const Eigen::VectorXd& weights);

// Minimises sum_i ((y_i - X_i b) / y_i)^2. Requires |y_i| > 0.
LinearFit fit_relative_least_squares(const Eigen::MatrixXd& design, const Eigen::VectorXd& y);

// y = intercept + slope x (two columns: 1, x).
struct Line {
  double intercept = 0;
  double slope = 0;
  Residual residual;
};
Line fit_line(const std::vector<double>& x, const std::vector<double>& y);

// y = slope x, through the origin.
double fit_proportional(const std::vector<double>& x, const std::vector<double>& y);

// The number of distinct values in `x` (to exact equality): a line needs two.
std::size_t distinct_values(std::vector<double> x);
// Whether the largest x is at least `ratio` times the smallest (all x > 0): points closer together than that
// let a line's intercept and slope trade off against each other, so a line through them means little.
bool spans(const std::vector<double>& x, double ratio);
// The spread a line fit needs (sizes at least this far apart).
inline constexpr double kMinSpreadForLine = 1.5;

}  // namespace tessera::app::calibration
