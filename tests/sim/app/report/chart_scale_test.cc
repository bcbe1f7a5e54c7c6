// The charts' shared scale (sim/app/report/charts/scale.h): ticks and labels on a linear and a log
// axis, when log is chosen, that positions keep the values' order, and where zero and negative
// values go on a log axis; and that a chart says when its axis is log.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sim/app/report/charts/scale.h"
#include "sim/app/report/charts/stacked_bar_chart.h"

using namespace tessera::app::report::charts;

namespace {

std::vector<std::string> labels_of(const Scale& s) {
  std::vector<std::string> labels;
  for (const AxisTick& t : s.time_ticks()) labels.push_back(t.label);
  return labels;
}

std::vector<double> values_of(const Scale& s) {
  std::vector<double> values;
  for (const AxisTick& t : s.time_ticks()) values.push_back(t.value_ns);
  return values;
}

}  // namespace

TEST_CASE("a linear time axis has round ticks from 0, labelled in the unit of its end") {
  const Scale s = Scale::linear(1000.0);
  CHECK_FALSE(s.is_log());
  CHECK(s.lower() == 0.0);
  CHECK(s.upper() == 1000.0);
  CHECK(labels_of(s) == std::vector<std::string>{"0 us", "0.2 us", "0.4 us", "0.6 us", "0.8 us", "1 us"});
  CHECK(labels_of(Scale::linear(399024.194)) == std::vector<std::string>{"0 us", "100 us", "200 us", "300 us"});
  CHECK(labels_of(Scale::linear(750.0)) == std::vector<std::string>{"0 ns", "200 ns", "400 ns", "600 ns"});
  CHECK(labels_of(Scale::linear(2.5e9)) == std::vector<std::string>{"0 s", "0.5 s", "1 s", "1.5 s", "2 s", "2.5 s"});
  // Tick positions: evenly spaced, the first at the start.
  const std::vector<double> v = values_of(s);
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(s.fraction(v[i]) == doctest::Approx(0.2 * static_cast<double>(i)));
  // Rounded up, the axis ends on a tick.
  const Scale up = Scale::linear(950.0, 5, true);
  CHECK(up.upper() == doctest::Approx(1000.0));
  CHECK(labels_of(up).back() == "1 us");
  // Nothing to plot: still an axis, from 0 to 1 ns.
  CHECK(Scale::linear(0.0).upper() == 1.0);
  CHECK(labels_of(Scale::linear(0.0)).front() == "0 ns");
}

TEST_CASE("a log time axis spans whole decades, one tick per decade, each in its own unit") {
  const Scale s = Scale::logarithmic(1000.0, 90000.0);
  CHECK(s.is_log());
  CHECK(s.lower() == doctest::Approx(100.0));  // a decade below the smallest value's
  CHECK(s.upper() == doctest::Approx(1e5));
  CHECK(labels_of(s) == std::vector<std::string>{"100 ns", "1 us", "10 us", "100 us"});
  const std::vector<double> v = values_of(s);
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(s.fraction(v[i]) == doctest::Approx(static_cast<double>(i) / 3.0));
  // Equal ratios are equal distances.
  CHECK(s.fraction(3000.0) - s.fraction(300.0) == doctest::Approx(s.fraction(30000.0) - s.fraction(3000.0)));
  CHECK(labels_of(Scale::logarithmic(2e5, 3e9)) ==
        std::vector<std::string>{"10 us", "100 us", "1 ms", "10 ms", "100 ms", "1 s", "10 s"});
  // The smallest value is at least a decade from the start, so its bar shows.
  CHECK(s.fraction(1000.0) == doctest::Approx(1.0 / 3.0));
}

TEST_CASE("a log scale over the values' own decades has no extra decade below") {
  // The scatter of `tessera validate`: from the decade at or below the smallest value to the one
  // at or above the largest.
  const Scale s = Scale::log_decades(1500.0, 2.5e7);
  CHECK(s.is_log());
  CHECK(s.lower() == doctest::Approx(1000.0));
  CHECK(s.upper() == doctest::Approx(1e8));
  CHECK(labels_of(s) == std::vector<std::string>{"1 us", "10 us", "100 us", "1 ms", "10 ms", "100 ms"});
  const std::vector<double> v = values_of(s);
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(s.fraction(v[i]) == doctest::Approx(static_cast<double>(i) / 5.0));
  // Powers of ten are their own decade at either end.
  const Scale exact = Scale::log_decades(100.0, 1e4);
  CHECK(exact.lower() == doctest::Approx(100.0));
  CHECK(exact.upper() == doctest::Approx(1e4));
  CHECK(labels_of(exact) == std::vector<std::string>{"100 ns", "1 us", "10 us"});
  CHECK(exact.fraction(100.0) == 0.0);
  CHECK(exact.fraction(1e4) == doctest::Approx(1.0));
  // Values within one decade, or one value: still a whole decade.
  const Scale one = Scale::log_decades(1000.0, 1000.0);
  CHECK(one.lower() == doctest::Approx(1000.0));
  CHECK(one.upper() == doctest::Approx(1e4));
  CHECK(labels_of(one) == std::vector<std::string>{"1 us", "10 us"});
  const Scale within = Scale::log_decades(2e6, 8e6);
  CHECK(labels_of(within) == std::vector<std::string>{"1 ms", "10 ms"});
  // Below a nanosecond and past a second.
  CHECK(labels_of(Scale::log_decades(0.5, 20.0)) == std::vector<std::string>{"0.1 ns", "1 ns", "10 ns", "100 ns"});
  CHECK(labels_of(Scale::log_decades(5e8, 2e10)) == std::vector<std::string>{"100 ms", "1 s", "10 s", "100 s"});
  // Nothing positive: 1 ns to 10 ns.
  const Scale empty = Scale::log_decades(0.0, 0.0);
  CHECK(empty.is_log());
  CHECK(empty.lower() == doctest::Approx(1.0));
  CHECK(empty.upper() == doctest::Approx(10.0));
  CHECK(Scale::log_decades(-3.0, std::numeric_limits<double>::infinity()).upper() > 0.0);
  // The same decades that logarithmic() draws, less the one it adds below.
  const Scale bars = Scale::logarithmic(1500.0, 2.5e7);
  CHECK(bars.lower() == doctest::Approx(s.lower() / 10));
  CHECK(bars.upper() == doctest::Approx(s.upper()));
}

TEST_CASE("log is chosen when the positive values span more than the ratio, and only then") {
  const std::vector<double> ninety_times = {1000.0, 90000.0};
  CHECK(Scale::automatic(ninety_times).is_log());
  const std::vector<double> forty_times = {1000.0, 40000.0};
  CHECK_FALSE(Scale::automatic(forty_times).is_log());
  const std::vector<double> at_ratio = {1000.0, 1000.0 * kAutoLogRatio};
  CHECK_FALSE(Scale::automatic(at_ratio).is_log());
  // Zero, negative and non-finite values take no part in the choice.
  const std::vector<double> with_zero = {0.0, -5.0, 1000.0, 1200.0, std::numeric_limits<double>::infinity()};
  const Scale s = Scale::automatic(with_zero);
  CHECK_FALSE(s.is_log());
  CHECK(s.upper() == 1200.0);
  const std::vector<double> zeros = {0.0, 0.0};
  CHECK_FALSE(Scale::automatic(zeros).is_log());
  CHECK(Scale::automatic({}).upper() == 1.0);
  const std::vector<double> zero_and_spread = {0.0, 10.0, 1e6};
  CHECK(Scale::automatic(zero_and_spread).is_log());
  CHECK(axis_title("time", Scale::automatic(ninety_times)) == "time (log scale)");
  CHECK(axis_title("time", Scale::automatic(forty_times)) == "time");
}

TEST_CASE("positions keep the values' order on both kinds of axis") {
  for (const Scale& s : {Scale::linear(1e6), Scale::logarithmic(10.0, 1e6)}) {
    double last = -1.0;
    for (double v = -100.0; v < 2e6; v = v < 1 ? v + 7.0 : v * 1.37) {
      const double f = s.fraction(v);
      CHECK(f >= last);
      CHECK(f >= 0.0);
      CHECK(f <= 1.0);
      last = f;
    }
    CHECK(s.fraction(s.lower()) == 0.0);
    CHECK(s.fraction(s.upper()) == doctest::Approx(1.0));
    CHECK(s.fraction(10 * s.upper()) == 1.0);  // past the end: clamped
  }
}

TEST_CASE("zero and negative values sit at the start of a log axis") {
  const Scale s = Scale::logarithmic(10.0, 1e6);
  CHECK(s.fraction(0.0) == 0.0);
  CHECK(s.fraction(-1.0) == 0.0);
  CHECK(s.fraction(-std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(s.fraction(std::nan("")) == 0.0);
  CHECK(s.fraction(s.lower() / 2) == 0.0);
  // A log scale asked for with nothing positive still has a decade to draw.
  const Scale empty = Scale::logarithmic(0.0, 0.0);
  CHECK(empty.is_log());
  CHECK(empty.upper() > empty.lower());
  CHECK(empty.lower() > 0.0);
}

TEST_CASE("a bar chart on a log axis says so, and keeps each bar's segments in proportion") {
  StackedBar fast;
  fast.label = "fast";
  fast.run = "fast";
  fast.span_ns = 1000.0;
  fast.parts_ns[0] = 600.0;
  fast.parts_ns[4] = 400.0;
  StackedBar slow = fast;
  slow.label = slow.run = "slow";
  slow.span_ns = 90000.0;
  slow.parts_ns[0] = 54000.0;
  slow.parts_ns[4] = 36000.0;
  const std::vector<StackedBar> bars{fast, slow};
  const Scale scale = bar_scale(bars);
  REQUIRE(scale.is_log());
  const std::string svg = stacked_bar_chart(bars, scale, "bars");
  CHECK(svg.find("data-scale=\"log\"") != std::string::npos);
  CHECK(svg.find("time (log scale)") != std::string::npos);
  CHECK(svg.find("Log scale") != std::string::npos);
  // fast: 1000 ns on [100 ns, 100 us] is a third of the 660 px bar area, split 60/40.
  CHECK(svg.find(R"(data-run="fast" x="180.00" y="4.00" width="132.00")") != std::string::npos);
  CHECK(svg.find(R"(data-run="fast" x="312.00" y="4.00" width="88.00")") != std::string::npos);
  // On a linear axis the same chart says nothing about its scale.
  const std::string linear = stacked_bar_chart({fast}, bar_scale({fast}), "bars");
  CHECK(linear.find("data-scale=\"linear\"") != std::string::npos);
  CHECK(linear.find("log scale") == std::string::npos);
}
