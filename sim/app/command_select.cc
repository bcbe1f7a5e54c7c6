// tessera select RESULTS.csv --target KEY [--features K1,K2,...] [--max-depth D] [--out DIR]
// Learns a small decision tree that picks the fastest variant from a sweep's results (docs/tune.md,
// "tessera select"): the points that differ only in the target form a group labelled by its fastest
// variant; the tree maps the features to that label. Prints the tree as rules with its
// leave-one-out accuracy and the slowdown of its choices against the oracle and against the best
// single variant; writes it as JSON and as a C++ header.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/app/atomic_file.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/select/decision_tree.h"
#include "sim/app/select/results_table.h"
#include "sim/app/select/selection_set.h"
#include "sim/app/select/selector_evaluation.h"
#include "sim/app/sweep/results_csv.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"
#include "sim/io/output_file.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace tessera::app {
namespace {

using select::DecisionTree;
using select::SelectionSet;

struct SelectRequest {
  std::string results;
  std::string target;
  std::vector<std::string> features;
  int max_depth = 4;
  std::string out_dir = "select";
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::optional<SelectRequest> parse_request(const Args& args) {
  po::options_description opts(
      "tessera select RESULTS.csv --target KEY [options]\n\nLearns a decision tree that picks the fastest value of "
      "KEY (a swept key, e.g. variant) from the other\nswept keys of a sweep's results.csv: the points that differ "
      "only in KEY form a group, labelled by its\nfastest value. Prints the tree as rules with its leave-one-out "
      "accuracy and slowdowns; writes DIR/selector.json,\nDIR/selector.h (a C++ header), DIR/rules.txt and "
      "DIR/groups.csv (docs/tune.md).\n\nOptions");
  SelectRequest request;
  opts.add_options()("help,h", "show this help")
      ("target", po::value<std::string>(), "the swept key to choose (by path or last segment: variant)")
      ("features", po::value<std::string>(), "comma-separated swept keys the tree may ask (default: every swept key "
                                             "but the target)")
      ("max-depth", po::value<Count<int>>(), "levels of questions, at least 1 (default 4)")
      ("out", po::value<std::string>(), "output folder (default ./select)")
      ("results", po::value<std::string>(), "the sweep's results.csv (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("results", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return std::nullopt;
  const po::variables_map& vm = *parsed;
  if (!vm.count("results")) throw UsageError("select: missing the results file (tessera select RESULTS.csv --target KEY)");
  if (!vm.count("target")) throw UsageError("select: missing --target KEY (the swept key to choose, e.g. variant)");
  request.results = vm["results"].as<std::string>();
  request.target = vm["target"].as<std::string>();
  if (vm.count("features")) {
    request.features = split_list(vm["features"].as<std::string>());
    if (request.features.empty()) throw UsageError("--features: give at least one key");
  }
  if (vm.count("max-depth")) {
    request.max_depth = vm["max-depth"].as<Count<int>>().value;
    if (request.max_depth < 1 || request.max_depth > 32) throw UsageError("--max-depth must be between 1 and 32");
  }
  if (vm.count("out")) request.out_dir = vm["out"].as<std::string>();
  return request;
}

std::string pct(double v) { return fmt::format("{:.2f}%", 100 * v); }

std::string groups_csv(const SelectionSet& s, const select::Evaluation& e) {
  std::vector<std::string> header{"line"};
  header.insert(header.end(), s.feature_columns.begin(), s.feature_columns.end());
  header.insert(header.end(), {"fastest", "loo_prediction"});
  for (const std::string& c : s.classes) header.push_back(fmt::format("makespan_ns[{}]", c));
  std::string out;
  std::vector<std::string> cells;
  for (const std::string& h : header) cells.push_back(sweep::csv_cell(h));
  out += fmt::format("{}\n", fmt::join(cells, ","));
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    cells = {std::to_string(s.groups[g].line)};
    for (const std::string& v : s.groups[g].values) cells.push_back(sweep::csv_cell(v));
    cells.push_back(sweep::csv_cell(s.classes[s.groups[g].label]));
    cells.push_back(sweep::csv_cell(s.classes[e.loo[g]]));
    for (double t : s.groups[g].makespan_ns) cells.push_back(fmt::format("{:.3f}", t));
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

}  // namespace

int command_select(const Args& args) {
  const std::optional<SelectRequest> request = parse_request(args);
  if (!request) return kExitOk;
  const select::ResultsTable table = select::read_results_table(request->results);
  const SelectionSet set = select::build_selection_set(table, request->target, request->features);
  const fs::path out_dir(request->out_dir);
  sim::io::check_output_folder(out_dir, "--out");

  std::vector<std::vector<double>> x;
  std::vector<std::size_t> y;
  for (const select::Group& g : set.groups) {
    x.push_back(g.x);
    y.push_back(g.label);
  }
  const DecisionTree tree = select::learn_tree(x, y, set.classes.size(), request->max_depth);
  const select::Evaluation e = select::evaluate(set, tree, request->max_depth);
  const std::string rules = select::tree_rules(tree, set);

  std::cout << fmt::format("select {}: {} groups of points that differ only in {} ({}; {} left out: a value failed or "
                           "was not run), features {}\n",
                           request->results, set.groups.size(), set.target, fmt::join(set.classes, ", "),
                           set.incomplete_groups, fmt::join(set.feature_columns, ", "));
  std::cout << fmt::format("tree: depth {}, {} leaves (--max-depth {})\n", tree.depth(), tree.leaves(), request->max_depth);
  std::cout << rules;
  TextTable t({"choice", "right (%)", "slowdown vs oracle, geomean", "slowdown vs oracle, worst"});
  t.add_row({"the tree, leave-one-out", fmt::format("{:.1f}", 100 * e.loo_accuracy), pct(e.loo_slowdown_geomean),
             pct(e.loo_slowdown_max)});
  t.add_row({"the tree, on its training groups", fmt::format("{:.1f}", 100 * e.train_accuracy),
             pct(e.tree_slowdown_geomean), pct(e.tree_slowdown_max)});
  std::size_t single_right = 0;
  for (const auto& g : set.groups) single_right += g.label == e.best_single ? 1 : 0;
  t.add_row({fmt::format("always {} (the best single)", set.classes[e.best_single]),
             fmt::format("{:.1f}", 100.0 * static_cast<double>(single_right) / static_cast<double>(set.groups.size())),
             pct(e.single_slowdown_geomean), pct(e.single_slowdown_max)});
  std::cout << t.render();

  const std::string provenance = fmt::format("tessera select {} --target {} --max-depth {}{}", request->results,
                                             request->target, request->max_depth,
                                             request->features.empty() ? ""
                                                                       : " --features " + fmt::format("{}", fmt::join(request->features, ",")));
  nlohmann::json j{{"results", request->results},
                   {"target", set.target},
                   {"classes", set.classes},
                   {"features", set.feature_columns},
                   {"groups", set.groups.size()},
                   {"incomplete_groups", set.incomplete_groups},
                   {"max_depth", request->max_depth},
                   {"depth", tree.depth()},
                   {"tree", select::tree_json(tree, set)},
                   {"leave_one_out_accuracy", e.loo_accuracy},
                   {"training_accuracy", e.train_accuracy},
                   {"slowdown_vs_oracle",
                    {{"leave_one_out_geomean", e.loo_slowdown_geomean},
                     {"leave_one_out_worst", e.loo_slowdown_max},
                     {"training_geomean", e.tree_slowdown_geomean},
                     {"training_worst", e.tree_slowdown_max}}},
                   {"best_single", {{"variant", set.classes[e.best_single]},
                                    {"slowdown_vs_oracle_geomean", e.single_slowdown_geomean},
                                    {"slowdown_vs_oracle_worst", e.single_slowdown_max}}}};
  write_file_atomically(out_dir / "selector.json", j.dump(2) + "\n");
  write_file_atomically(out_dir / "selector.h", select::tree_header(tree, set, provenance));
  write_file_atomically(out_dir / "rules.txt", "# " + provenance + "\n" + rules);
  write_file_atomically(out_dir / "groups.csv", groups_csv(set, e));
  std::cerr << fmt::format("select: wrote {}, selector.h, rules.txt and groups.csv\n", (out_dir / "selector.json").string());
  return kExitOk;
}

}  // namespace tessera::app
