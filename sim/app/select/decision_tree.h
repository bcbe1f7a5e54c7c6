#pragma once
// A classification tree (CART) learnt by OpenCV's ml module (cv::ml::DTrees, Debian's
// libopencv-ml-dev: Debian 12 packages no mlpack) and copied into this plain form, which predicts
// without OpenCV and prints itself as rules, JSON and a C++ header. Training uses no random
// numbers (no cross-validation pruning, no surrogates), so the same data give the same tree.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/select/selection_set.h"

namespace tessera::app::select {

struct TreeNode {
  int feature = -1;        // -1: a leaf
  double threshold = 0;    // a sample goes to `below` when its feature's value < threshold
  int below = -1;
  int above = -1;
  std::size_t label = 0;   // a leaf's class
};

struct DecisionTree {
  std::vector<TreeNode> nodes;  // nodes[0] is the root

  std::size_t predict(const std::vector<double>& x) const;
  int depth() const;
  std::size_t leaves() const;
};

// Learns from x (one row per sample) and y (class indices below `classes`), at most `max_depth`
// levels below the root (at least 1). Every class may be absent from y; a y of one class gives a
// single leaf.
DecisionTree learn_tree(const std::vector<std::vector<double>>& x, const std::vector<std::size_t>& y, std::size_t classes,
                        int max_depth);

// OpenCV's own prediction of the same training data, for the tests that check the copy.
std::vector<std::size_t> opencv_predictions(const std::vector<std::vector<double>>& x, const std::vector<std::size_t>& y,
                                            std::size_t classes, int max_depth);

// "if batch < 6:\n  fused (12 groups)\nelse:\n  bsp (16 groups)\n": numeric thresholds as the
// smallest round number between the training values around them; a categorical indicator's
// split as "collective is nccl" / "is not". `groups`: the training set, counted per leaf.
std::string tree_rules(const DecisionTree& tree, const SelectionSet& set);
nlohmann::json tree_json(const DecisionTree& tree, const SelectionSet& set);
// A header a kernel library can compile in: a Features struct (numbers as double in their base
// unit, categories as std::string_view) and `inline const char* select_variant(const Features&)`.
std::string tree_header(const DecisionTree& tree, const SelectionSet& set, const std::string& provenance);

}  // namespace tessera::app::select
