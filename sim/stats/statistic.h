#pragma once
// Statistics a component registers: counters, accumulators and histograms, each with a unit.
//
// They are plain value holders updated on the hot path (an add, no lookup); naming, units and
// output belong to the StatRegistry and its writers, so a model never formats anything.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace tessera::sim::stats {

// Counts things: events, bytes, hits.
class Counter {
 public:
  void add(std::uint64_t n = 1) { value_ += n; }
  std::uint64_t value() const { return value_; }

 private:
  std::uint64_t value_ = 0;
};

// Sum, count, min and max of samples (e.g. latencies in ps); the mean follows.
class Accumulator {
 public:
  void sample(double x) {
    sum_ += x;
    ++count_;
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  double min() const { return count_ ? min_ : 0.0; }
  double max() const { return count_ ? max_ : 0.0; }

 private:
  double sum_ = 0.0;
  std::uint64_t count_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

// Equal-width bins over [lo, lo + bins * width), with under- and overflow counts.
class Histogram {
 public:
  Histogram(double lo, double width, std::size_t bins) : lo_(lo), width_(width), counts_(bins, 0) {
    if (!(width > 0.0) || bins == 0) throw std::invalid_argument("a histogram needs a positive bin width and bins");
  }
  void sample(double x) {
    ++total_;
    if (x < lo_) {
      ++underflow_;
      return;
    }
    const double bin = (x - lo_) / width_;
    if (bin >= static_cast<double>(counts_.size())) {
      ++overflow_;
      return;
    }
    ++counts_[static_cast<std::size_t>(bin)];
  }
  double lo() const { return lo_; }
  double width() const { return width_; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  std::uint64_t underflow() const { return underflow_; }
  std::uint64_t overflow() const { return overflow_; }
  std::uint64_t total() const { return total_; }

 private:
  double lo_;
  double width_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t underflow_ = 0;
  std::uint64_t overflow_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace tessera::sim::stats
