// The least-squares solver of calibration against analytic data: known parameters, points made
// from them, exact recovery.
#include <doctest/doctest.h>

#include <vector>

#include "sim/app/calibration/linear_fit.h"

using namespace tessera::app::calibration;

TEST_CASE("a line recovers its intercept and slope exactly across sizes of very different magnitude") {
  // time_ns = 650 + bytes / 4.1 (4.1 bytes per ns = 4.1 TB/s)
  const std::vector<double> bytes{268435456.0, 536870912.0, 1073741824.0, 2147483648.0, 4194304.0};
  std::vector<double> time;
  for (double b : bytes) time.push_back(650.0 + b / 4.1);
  const Line line = fit_line(bytes, time);
  CHECK(line.intercept == doctest::Approx(650.0).epsilon(1e-9));
  CHECK(line.slope == doctest::Approx(1 / 4.1).epsilon(1e-12));
  CHECK(line.residual.rms == doctest::Approx(0.0).epsilon(1e-6));
  CHECK(line.residual.relative_rms < 1e-12);
  CHECK(line.residual.points == 5);
}

TEST_CASE("a proportional fit and a weighted mean are exact on exact data") {
  CHECK(fit_proportional({1, 2, 3}, {2.5, 5.0, 7.5}) == doctest::Approx(2.5));
  // A constant: x = 1 everywhere gives the mean weighted by 1/y^2, which is exact when all y agree.
  CHECK(fit_proportional({1, 1, 1}, {700, 700, 700}) == doctest::Approx(700));
}

TEST_CASE("relative weighting: the fit minimises errors in percent so small values count as much as large ones") {
  // Two points inconsistent with a constant: 100 and 200. Minimising sum ((y - c) / y)^2 gives
  // c = sum(1/y) / sum(1/y^2) = (0.01 + 0.005) / (1e-4 + 2.5e-5) = 120.
  CHECK(fit_proportional({1, 1}, {100, 200}) == doctest::Approx(120));
}

TEST_CASE("several columns with per-case intercepts and a shared slope are recovered") {
  // rows: case A (intercept 1000) and case B (intercept 3000) share the slope 0.05.
  Eigen::MatrixXd design(6, 3);
  Eigen::VectorXd y(6);
  const double x[] = {1e4, 1e5, 1e6};
  for (int i = 0; i < 3; ++i) {
    design.row(i) << 1, 0, x[i];
    y(i) = 1000 + 0.05 * x[i];
    design.row(3 + i) << 0, 1, x[i];
    y(3 + i) = 3000 + 0.05 * x[i];
  }
  const LinearFit fit = fit_relative_least_squares(design, y);
  CHECK(fit.rank == 3);
  CHECK(fit.coefficients(0) == doctest::Approx(1000));
  CHECK(fit.coefficients(1) == doctest::Approx(3000));
  CHECK(fit.coefficients(2) == doctest::Approx(0.05));
  CHECK(fit.residual.mape < 1e-12);
}

TEST_CASE("a design whose columns the data cannot separate reports a lower rank") {
  Eigen::MatrixXd design(3, 2);
  design << 1, 2, 1, 2, 1, 2;  // the second column is twice the first
  Eigen::VectorXd y(3);
  y << 5, 5, 5;
  CHECK(fit_relative_least_squares(design, y).rank == 1);
}

TEST_CASE("residual arithmetic: RMS and relative RMS and MAPE") {
  const Residual r = residual_of({100, 200}, {110, 190});
  CHECK(r.rms == doctest::Approx(10));
  CHECK(r.relative_rms == doctest::Approx(std::sqrt((0.01 + 0.0025) / 2)));
  CHECK(r.mape == doctest::Approx((0.1 + 0.05) / 2));
}

TEST_CASE("distinct values decide whether a line can be fitted") {
  CHECK(distinct_values({3, 1, 3, 1}) == 2);
  CHECK(distinct_values({7}) == 1);
}
