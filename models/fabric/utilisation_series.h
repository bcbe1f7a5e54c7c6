#pragma once
// Utilisation of one resource over time, as a step function: each sample holds from its time
// until the next sample's. Recorded only when the value changes (rates change only when flows
// start or end), so a busy steady state costs nothing.
#include <algorithm>
#include <vector>

#include "sim/core/tick.h"

namespace tessera::models::fabric {

struct UtilisationSample {
  sim::Tick time_ps = 0;
  double utilisation_frac = 0;  // load / bandwidth, in [0, 1]
};

class UtilisationSeries {
 public:
  void record(sim::Tick time_ps, double utilisation_frac) {
    if (!samples_.empty() && samples_.back().time_ps == time_ps) {
      samples_.back().utilisation_frac = utilisation_frac;  // several updates in one tick: the last wins
      const double before = samples_.size() >= 2 ? samples_[samples_.size() - 2].utilisation_frac : 0.0;
      if (before == utilisation_frac) samples_.pop_back();
      return;
    }
    if (samples_.empty() ? utilisation_frac == 0.0 : samples_.back().utilisation_frac == utilisation_frac) return;
    samples_.push_back({time_ps, utilisation_frac});
  }
  const std::vector<UtilisationSample>& samples() const { return samples_; }

  // Integral of utilisation over [0, until_ps), in ps (busy time of the resource).
  double busy_ps(sim::Tick until_ps) const {
    double sum = 0;
    for (std::size_t i = 0; i < samples_.size() && samples_[i].time_ps < until_ps; ++i) {
      const sim::Tick end = i + 1 < samples_.size() ? std::min(samples_[i + 1].time_ps, until_ps) : until_ps;
      sum += samples_[i].utilisation_frac * static_cast<double>(end - samples_[i].time_ps);
    }
    return sum;
  }

 private:
  std::vector<UtilisationSample> samples_;  // empty means idle since time 0
};

}  // namespace tessera::models::fabric
