#pragma once
// How good a learnt selector is (docs/tune.md, "tessera select"): how often it names the fastest
// variant, with the tree learnt on every group and leave-one-out (each group predicted by the tree
// learnt without it), and how much slower its choices run than the fastest (the oracle's), against
// always choosing the single variant that is best over all groups.
#include <cstddef>
#include <vector>

#include "sim/app/select/decision_tree.h"
#include "sim/app/select/selection_set.h"

namespace tessera::app::select {

struct Evaluation {
  std::vector<std::size_t> loo;  // each group's prediction by the tree learnt without it
  double loo_accuracy = 0;       // 0 with a single group (nothing to learn from)
  double train_accuracy = 0;
  // Slowdowns: the geometric mean and the worst over the groups of t(choice) / t(fastest) - 1.
  double loo_slowdown_geomean = 0, loo_slowdown_max = 0;
  double tree_slowdown_geomean = 0, tree_slowdown_max = 0;  // the tree learnt on every group
  std::size_t best_single = 0;                              // the class of the lowest geomean slowdown
  double single_slowdown_geomean = 0, single_slowdown_max = 0;
};

Evaluation evaluate(const SelectionSet& set, const DecisionTree& tree, int max_depth);

}  // namespace tessera::app::select
