#pragma once
// How a chart maps a value (a time in ns) to a position along its axis: linearly from 0, or
// logarithmically over whole decades when the values plotted together span so many that the
// small ones would be invisible on a linear axis (a variant 90 times slower than another, a 20 ns
// launch overhead beside a 200 us compute part). Every chart of the reports draws its time axis
// from one of these, so that they all choose, tick and label alike.
#include <span>
#include <string>
#include <vector>

namespace tessera::app::report::charts {

enum class ScaleKind { kLinear, kLog };

// Values whose largest positive one is more than this many times the smallest positive one are
// drawn on a log scale: at 50x the smallest bar of a linear axis is under 2% of the largest, too
// short to show its segments or to compare with its neighbours.
inline constexpr double kAutoLogRatio = 50.0;

struct AxisTick {
  double value_ns = 0.0;
  std::string label;  // "0.2 us", "10 ms"
};

class Scale {
 public:
  // From 0 to max_value (at least 1 where max_value is not positive), ticks at steps of 1, 2 or 5
  // times a power of ten, about target_ticks of them. With round_up, the upper end moves up to the
  // next tick, so that the axis ends on a labelled value.
  static Scale linear(double max_value, int target_ticks = 5, bool round_up = false);
  // Whole decades: from a decade below the decade of min_positive (so that the smallest bar is at
  // least a decade long) up to the first power of ten at or above max_value.
  static Scale logarithmic(double min_positive, double max_value);
  // Whole decades from the power of ten at or below min_positive up to the first at or above
  // max_value, at least one decade, with no extra decade below: for plots of points rather than
  // bars (the predicted-against-measured scatter of `tessera validate`), where the smallest value
  // needs no length to show. Nothing positive to plot: 1 ns to 10 ns.
  static Scale log_decades(double min_positive, double max_value);
  // Log when the positive values span more than kAutoLogRatio, else linear. Zero, negative and
  // non-finite values take no part in the choice (a log axis cannot show them; they sit at its start).
  static Scale automatic(std::span<const double> values, int target_ticks = 5, bool round_up = false);

  ScaleKind kind() const { return kind_; }
  bool is_log() const { return kind_ == ScaleKind::kLog; }
  double lower() const { return lower_; }  // the value at the start of the axis: 0 on a linear scale
  double upper() const { return upper_; }

  // The position of `value` along the axis, from 0 (its start) to 1 (its end); non-decreasing in
  // value. Values outside the axis are clamped to its ends; on a log scale zero and negative
  // values sit at the start.
  double fraction(double value) const;

  // Ticks along the axis, labelled as times: on a linear scale every label in the one unit of the
  // upper end ("0 us", "0.2 us", ..., "1 us"); on a log scale one per decade, each in its own unit
  // ("100 ns", "1 us", "10 us").
  std::vector<AxisTick> time_ticks() const;

 private:
  Scale(ScaleKind kind, double lower, double upper, double step) : kind_(kind), lower_(lower), upper_(upper), step_(step) {}

  ScaleKind kind_;
  double lower_;
  double upper_;
  double step_;  // linear: the distance between ticks
};

// The axis title a chart shows: "time", or "time (log scale)" where the scale is logarithmic.
std::string axis_title(std::string_view quantity, const Scale& scale);

}  // namespace tessera::app::report::charts
