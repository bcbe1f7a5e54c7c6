#include "sim/app/report/link_utilisation.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tessera::app::report {
namespace {

struct Change {
  double time_ns;
  std::size_t link;  // index within the class
  std::size_t order;  // position in the input: of two samples at one instant, the later holds
  double utilisation;
};

std::vector<UtilisationStep> average(std::vector<Change> changes, std::size_t num_links) {
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return std::tie(a.time_ns, a.link, a.order) < std::tie(b.time_ns, b.link, b.order);
  });
  std::vector<double> current(num_links, 0.0);
  double sum = 0.0;
  std::vector<UtilisationStep> steps;
  for (std::size_t i = 0; i < changes.size();) {
    const double t = changes[i].time_ns;
    for (; i < changes.size() && changes[i].time_ns == t; ++i) {
      sum += changes[i].utilisation - current[changes[i].link];
      current[changes[i].link] = changes[i].utilisation;
    }
    const double mean = std::max(0.0, sum / static_cast<double>(num_links));
    if (steps.empty() || steps.back().utilisation != mean) steps.push_back({t, mean});
  }
  return steps;
}

// Time-weighted mean of the step function over each of `bins` equal bins of [0, end_ns].
std::vector<UtilisationStep> resample(const std::vector<UtilisationStep>& steps, double end_ns, std::size_t bins) {
  std::vector<UtilisationStep> out;
  if (!(end_ns > 0) || bins == 0) return out;
  const double width = end_ns / static_cast<double>(bins);
  std::size_t k = 0;  // first step not yet passed
  double value = 0.0;
  for (std::size_t b = 0; b < bins; ++b) {
    const double lo = width * static_cast<double>(b);
    const double hi = b + 1 == bins ? end_ns : lo + width;
    double area = 0.0;
    double t = lo;
    while (k < steps.size() && steps[k].time_ns <= t) value = steps[k++].utilisation;
    while (k < steps.size() && steps[k].time_ns < hi) {
      area += value * (steps[k].time_ns - t);
      t = steps[k].time_ns;
      value = steps[k++].utilisation;
    }
    area += value * (hi - t);
    const double mean = area / (hi - lo);
    if (out.empty() || out.back().utilisation != mean) out.push_back({lo, mean});
  }
  return out;
}

}  // namespace

std::map<std::string, std::vector<UtilisationStep>> class_average_utilisation(
    const std::vector<workloads::LinkUtilisation>& links, double end_ns, std::size_t max_steps) {
  std::map<std::string, std::vector<Change>> changes;
  std::map<std::string, std::size_t> num_links;
  std::size_t order = 0;
  for (const workloads::LinkUtilisation& link : links) {
    const std::size_t index = num_links[link.link_class]++;
    auto& list = changes[link.link_class];
    for (const auto& [t, u] : link.samples) {
      if (!std::isfinite(t) || !std::isfinite(u)) continue;
      list.push_back({t, index, order++, u});
    }
  }
  std::map<std::string, std::vector<UtilisationStep>> result;
  for (auto& [name, list] : changes) {
    std::vector<UtilisationStep> steps = average(std::move(list), num_links[name]);
    if (steps.size() > max_steps) {
      double last = end_ns;
      if (!steps.empty()) last = std::max(last, steps.back().time_ns);
      steps = resample(steps, last, max_steps / 2);
    }
    result[name] = std::move(steps);
  }
  return result;
}

}  // namespace tessera::app::report
