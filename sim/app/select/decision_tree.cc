#include "sim/app/select/decision_tree.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>
#include <opencv2/ml.hpp>

namespace tessera::app::select {
namespace {

cv::Ptr<cv::ml::DTrees> train_opencv(const std::vector<std::vector<double>>& x, const std::vector<std::size_t>& y,
                                     int max_depth) {
  const int n = static_cast<int>(x.size());
  const int features = static_cast<int>(x.front().size());
  cv::Mat samples(n, features, CV_32F);
  cv::Mat responses(n, 1, CV_32S);
  for (int i = 0; i < n; ++i) {
    for (int f = 0; f < features; ++f) samples.at<float>(i, f) = static_cast<float>(x[static_cast<std::size_t>(i)][static_cast<std::size_t>(f)]);
    responses.at<int>(i, 0) = static_cast<int>(y[static_cast<std::size_t>(i)]);
  }
  cv::Mat types(1, features + 1, CV_8U, cv::Scalar(cv::ml::VAR_ORDERED));
  types.at<unsigned char>(0, features) = cv::ml::VAR_CATEGORICAL;
  auto data = cv::ml::TrainData::create(samples, cv::ml::ROW_SAMPLE, responses, cv::noArray(), cv::noArray(),
                                        cv::noArray(), types);
  auto tree = cv::ml::DTrees::create();
  tree->setMaxDepth(max_depth);
  tree->setMinSampleCount(2);     // split any node of two or more samples that are not all one class
  tree->setCVFolds(0);            // no cross-validation pruning: it draws random folds
  tree->setUseSurrogates(false);  // no missing values
  tree->setUse1SERule(false);
  tree->setTruncatePrunedTree(false);
  tree->setRegressionAccuracy(0);
  if (!tree->train(data)) throw std::runtime_error("the decision tree could not be trained");
  return tree;
}

void copy_node(const cv::ml::DTrees& t, int index, DecisionTree& out) {
  const cv::ml::DTrees::Node& node = t.getNodes()[static_cast<std::size_t>(index)];
  const int at = static_cast<int>(out.nodes.size());
  out.nodes.emplace_back();
  if (node.split < 0 || node.left < 0 || node.right < 0) {
    out.nodes[static_cast<std::size_t>(at)].label = static_cast<std::size_t>(std::lround(node.value));
    return;
  }
  const cv::ml::DTrees::Split& split = t.getSplits()[static_cast<std::size_t>(node.split)];
  int below = node.left;
  int above = node.right;
  if (split.inversed) std::swap(below, above);
  out.nodes[static_cast<std::size_t>(at)].feature = split.varIdx;
  out.nodes[static_cast<std::size_t>(at)].threshold = split.c;
  out.nodes[static_cast<std::size_t>(at)].below = static_cast<int>(out.nodes.size());
  copy_node(t, below, out);
  out.nodes[static_cast<std::size_t>(at)].above = static_cast<int>(out.nodes.size());
  copy_node(t, above, out);
}

// The training samples that reach each node.
std::vector<std::vector<std::size_t>> samples_per_node(const DecisionTree& tree, const SelectionSet& set) {
  std::vector<std::vector<std::size_t>> at(tree.nodes.size());
  for (std::size_t g = 0; g < set.groups.size(); ++g) {
    int n = 0;
    while (true) {
      at[static_cast<std::size_t>(n)].push_back(g);
      const TreeNode& node = tree.nodes[static_cast<std::size_t>(n)];
      if (node.feature < 0) break;
      n = set.groups[g].x[static_cast<std::size_t>(node.feature)] < node.threshold ? node.below : node.above;
    }
  }
  return at;
}

// The roundest number in (lo, hi]: the threshold a person would write between two training values.
double round_threshold(double lo, double hi) {
  if (!(hi > lo)) return hi;
  for (double step = std::pow(10.0, std::ceil(std::log10(hi - lo)) + 1); step >= 1e-9; step /= 10) {
    for (double k : {1.0, 0.5, 0.25, 0.2}) {
      const double s = step * k;
      const double candidate = std::ceil(lo / s) * s;
      if (candidate > lo && candidate <= hi) return candidate;
      if (candidate == lo && candidate + s <= hi) return candidate + s;
    }
  }
  return (lo + hi) / 2;
}

// The split's threshold moved to the roundest number between the largest training value below it
// and the smallest at or above it: the same partition of the training data, easier to read.
double readable_threshold(const TreeNode& node, const std::vector<std::size_t>& samples, const SelectionSet& set) {
  double lo = -INFINITY, hi = INFINITY;
  for (std::size_t g : samples) {
    const double v = set.groups[g].x[static_cast<std::size_t>(node.feature)];
    if (v < node.threshold) lo = std::max(lo, v);
    else hi = std::min(hi, v);
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) return node.threshold;
  return round_threshold(lo, hi);
}

std::string number_text(double v) { return fmt::format("{:g}", v); }

std::string identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) out = "f_" + out;
  return out;
}

}  // namespace

std::size_t DecisionTree::predict(const std::vector<double>& x) const {
  int n = 0;
  while (nodes[static_cast<std::size_t>(n)].feature >= 0) {
    const TreeNode& node = nodes[static_cast<std::size_t>(n)];
    n = x[static_cast<std::size_t>(node.feature)] < node.threshold ? node.below : node.above;
  }
  return nodes[static_cast<std::size_t>(n)].label;
}

int DecisionTree::depth() const {
  const std::function<int(int)> d = [&](int n) -> int {
    const TreeNode& node = nodes[static_cast<std::size_t>(n)];
    return node.feature < 0 ? 0 : 1 + std::max(d(node.below), d(node.above));
  };
  return d(0);
}

std::size_t DecisionTree::leaves() const {
  return static_cast<std::size_t>(std::count_if(nodes.begin(), nodes.end(), [](const TreeNode& n) { return n.feature < 0; }));
}

DecisionTree learn_tree(const std::vector<std::vector<double>>& x, const std::vector<std::size_t>& y, std::size_t classes,
                        int max_depth) {
  if (x.empty() || x.size() != y.size()) throw std::invalid_argument("learn_tree: one label per sample, at least one sample");
  if (max_depth < 1) throw std::invalid_argument("learn_tree: a depth of at least 1");
  for (std::size_t label : y) {
    if (label >= classes) throw std::invalid_argument("learn_tree: a label outside the classes");
  }
  DecisionTree tree;
  if (std::all_of(y.begin(), y.end(), [&](std::size_t v) { return v == y.front(); })) {
    tree.nodes.push_back({-1, 0, -1, -1, y.front()});
    return tree;
  }
  const auto trained = train_opencv(x, y, max_depth);
  copy_node(*trained, trained->getRoots().front(), tree);
  return tree;
}

std::vector<std::size_t> opencv_predictions(const std::vector<std::vector<double>>& x, const std::vector<std::size_t>& y,
                                            std::size_t, int max_depth) {
  const auto trained = train_opencv(x, y, max_depth);
  std::vector<std::size_t> out;
  for (const auto& row : x) {
    cv::Mat sample(1, static_cast<int>(row.size()), CV_32F);
    for (std::size_t f = 0; f < row.size(); ++f) sample.at<float>(0, static_cast<int>(f)) = static_cast<float>(row[f]);
    out.push_back(static_cast<std::size_t>(std::lround(trained->predict(sample))));
  }
  return out;
}

std::string tree_rules(const DecisionTree& tree, const SelectionSet& set) {
  const auto at = samples_per_node(tree, set);
  std::string out;
  const std::function<void(int, int)> walk = [&](int n, int indent) {
    const TreeNode& node = tree.nodes[static_cast<std::size_t>(n)];
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    if (node.feature < 0) {
      const std::size_t count = at[static_cast<std::size_t>(n)].size();
      out += fmt::format("{}{} ({} group{})\n", pad, set.classes[node.label], count, count == 1 ? "" : "s");
      return;
    }
    const Feature& f = set.features[static_cast<std::size_t>(node.feature)];
    if (f.numeric) {
      out += fmt::format("{}if {} < {}:\n", pad, f.short_name, number_text(readable_threshold(node, at[static_cast<std::size_t>(n)], set)));
    } else {
      out += fmt::format("{}if {} is not {}:\n", pad, f.short_name, f.category);
    }
    walk(node.below, indent + 1);
    out += pad + "else:\n";
    walk(node.above, indent + 1);
  };
  walk(0, 0);
  return out;
}

nlohmann::json tree_json(const DecisionTree& tree, const SelectionSet& set) {
  const auto at = samples_per_node(tree, set);
  const std::function<nlohmann::json(int)> node_json = [&](int n) -> nlohmann::json {
    const TreeNode& node = tree.nodes[static_cast<std::size_t>(n)];
    if (node.feature < 0) {
      return {{"variant", set.classes[node.label]}, {"groups", at[static_cast<std::size_t>(n)].size()}};
    }
    const Feature& f = set.features[static_cast<std::size_t>(node.feature)];
    nlohmann::json j{{"key", f.column}};
    if (f.numeric) {
      j["below"] = readable_threshold(node, at[static_cast<std::size_t>(n)], set);
      j["if_below"] = node_json(node.below);
      j["otherwise"] = node_json(node.above);
    } else {
      j["equals"] = f.category;
      j["if_not"] = node_json(node.below);
      j["otherwise"] = node_json(node.above);
    }
    return j;
  };
  return node_json(0);
}

std::string tree_header(const DecisionTree& tree, const SelectionSet& set, const std::string& provenance) {
  const auto at = samples_per_node(tree, set);
  std::vector<std::string> fields;  // one per feature column, in its order
  std::vector<std::string> names;
  for (const std::string& column : set.feature_columns) {
    const auto f = std::find_if(set.features.begin(), set.features.end(), [&](const Feature& x) { return x.column == column; });
    names.push_back(identifier(f->short_name));
    fields.push_back(fmt::format("  {} {};  // {}{}", f->numeric ? "double" : "std::string_view", names.back(), column,
                                 f->numeric ? " (a number; a quantity in bytes, ps, B/s or Hz)" : ""));
  }
  std::string body;
  const std::function<void(int, int)> walk = [&](int n, int indent) {
    const TreeNode& node = tree.nodes[static_cast<std::size_t>(n)];
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    if (node.feature < 0) {
      body += fmt::format("{}return \"{}\";\n", pad, set.classes[node.label]);
      return;
    }
    const Feature& f = set.features[static_cast<std::size_t>(node.feature)];
    const auto col = static_cast<std::size_t>(
        std::find(set.feature_columns.begin(), set.feature_columns.end(), f.column) - set.feature_columns.begin());
    if (f.numeric) {
      body += fmt::format("{}if (f.{} < {}) {{\n", pad, names[col],
                          number_text(readable_threshold(node, at[static_cast<std::size_t>(n)], set)));
    } else {
      body += fmt::format("{}if (f.{} != \"{}\") {{\n", pad, names[col], f.category);
    }
    walk(node.below, indent + 1);
    body += pad + "}\n";
    walk(node.above, indent);
  };
  walk(0, 1);
  std::string out = "// Generated by " + provenance +
                    "\n// The variant predicted fastest for a point of these features (docs/tune.md, \"tessera select\").\n"
                    "#pragma once\n\n#include <string_view>\n\nnamespace tessera_selector {\n\nstruct Features {\n";
  for (const std::string& f : fields) out += f + "\n";
  out += "};\n\ninline const char* select_variant(const Features& f) {\n" + body + "}\n\n}  // namespace tessera_selector\n";
  return out;
}

}  // namespace tessera::app::select
