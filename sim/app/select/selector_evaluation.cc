#include "sim/app/select/selector_evaluation.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

namespace tessera::app::select {
namespace {

// Geometric mean and maximum of t(choice) / t(best) - 1 over the groups.
std::pair<double, double> slowdowns(const SelectionSet& s, const std::function<std::size_t(std::size_t)>& choice) {
  double log_sum = 0, worst = 0;
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    const auto& t = s.groups[g].makespan_ns;
    const double ratio = t[choice(g)] / t[s.groups[g].label];
    log_sum += std::log(ratio);
    worst = std::max(worst, ratio - 1);
  }
  return {std::exp(log_sum / static_cast<double>(s.groups.size())) - 1, worst};
}

}  // namespace

Evaluation evaluate(const SelectionSet& s, const DecisionTree& tree, int max_depth) {
  Evaluation e;
  const std::size_t n = s.groups.size();
  std::size_t correct = 0, train_correct = 0;
  for (std::size_t i = 0; i < n; ++i) {
    train_correct += tree.predict(s.groups[i].x) == s.groups[i].label ? 1 : 0;
    if (n == 1) {
      e.loo.push_back(s.groups[i].label);  // nothing to learn from: the accuracy says 0
      continue;
    }
    std::vector<std::vector<double>> x;
    std::vector<std::size_t> y;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      x.push_back(s.groups[j].x);
      y.push_back(s.groups[j].label);
    }
    e.loo.push_back(learn_tree(x, y, s.classes.size(), max_depth).predict(s.groups[i].x));
    correct += e.loo.back() == s.groups[i].label ? 1 : 0;
  }
  e.loo_accuracy = n > 1 ? static_cast<double>(correct) / static_cast<double>(n) : 0;
  e.train_accuracy = static_cast<double>(train_correct) / static_cast<double>(n);
  std::tie(e.loo_slowdown_geomean, e.loo_slowdown_max) = slowdowns(s, [&](std::size_t g) { return e.loo[g]; });
  std::tie(e.tree_slowdown_geomean, e.tree_slowdown_max) =
      slowdowns(s, [&](std::size_t g) { return tree.predict(s.groups[g].x); });
  e.single_slowdown_geomean = INFINITY;
  for (std::size_t c = 0; c < s.classes.size(); ++c) {
    const auto [geo, worst] = slowdowns(s, [c](std::size_t) { return c; });
    if (geo < e.single_slowdown_geomean) {
      e.best_single = c;
      e.single_slowdown_geomean = geo;
      e.single_slowdown_max = worst;
    }
  }
  return e;
}

}  // namespace tessera::app::select
