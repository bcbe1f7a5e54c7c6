// tessera select's library: the results CSV, the groups and their labels, a tree that recovers a
// planted rule (numeric and categorical), the copy of OpenCV's tree, the evaluation, and errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/app/select/decision_tree.h"
#include "sim/app/select/results_table.h"
#include "sim/app/select/selection_set.h"
#include "sim/app/select/selector_evaluation.h"
#include "sim/config/config_error.h"

namespace tessera::app::select {
namespace {

using sim::config::ConfigError;

ConfigError error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError");
  throw;
}

// A sweep's results over batch x kv_len x collective x variant, with makespans made so that
// `fastest(batch, kv, collective)` is the fastest variant (the others 10-30% slower).
std::string planted_csv(const std::function<std::string(int, int, const std::string&)>& fastest) {
  std::string csv = "point,workload.batch,workload.kv_len,workload.collective,workload.variant,makespan_ns,status\n";
  int point = 0;
  for (int batch : {1, 2, 4, 8, 16, 32}) {
    for (int kv : {1024, 4096, 16384}) {
      for (const char* collective : {"ring", "nccl"}) {
        int rank = 0;
        for (const char* variant : {"bsp", "fused", "fused_coarse"}) {
          const bool best = fastest(batch, kv, collective) == variant;
          const double t = best ? 1000.0 + kv / 1024.0 : 1100.0 + 100.0 * rank++ + kv / 1024.0;
          csv += fmt::format("{},{},{},{},{},{:.3f},ok\n", point++, batch, kv, collective, variant, t);
        }
      }
    }
  }
  return csv;
}

SelectionSet set_of(const std::string& csv, const std::vector<std::string>& features = {}) {
  return build_selection_set(parse_results_table(csv, "results.csv"), "variant", features);
}

DecisionTree tree_of(const SelectionSet& s, int depth = 4) {
  std::vector<std::vector<double>> x;
  std::vector<std::size_t> y;
  for (const Group& g : s.groups) {
    x.push_back(g.x);
    y.push_back(g.label);
  }
  return learn_tree(x, y, s.classes.size(), depth);
}

TEST_CASE("select: the results CSV, with quoted cells and the line of every row") {
  const ResultsTable t = parse_results_table("point,a,\"b,c\"\n0,\"x \"\"y\"\"\",1\n\n1,z,2\n", "r.csv");
  CHECK(t.columns == std::vector<std::string>{"point", "a", "b,c"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0][1] == "x \"y\"");
  CHECK(t.lines == std::vector<int>{2, 4});
  CHECK(t.column("c") == std::nullopt);
  const ConfigError short_row = error_of([] { parse_results_table("point,a,b\n0,1,2\n1,2\n", "r.csv"); });
  CHECK(short_row.location().line == 3);
  CHECK(error_of([] { parse_results_table("point,a\n0,\"open\n", "r.csv"); }).location().line == 2);
}

TEST_CASE("select: groups differ only in the target, labelled by their fastest variant") {
  const SelectionSet s = set_of(planted_csv([](int batch, int, const std::string&) { return batch <= 4 ? "fused" : "bsp"; }));
  CHECK(s.target == "workload.variant");
  CHECK(s.classes == std::vector<std::string>{"bsp", "fused", "fused_coarse"});
  CHECK(s.feature_columns == std::vector<std::string>{"workload.batch", "workload.kv_len", "workload.collective"});
  REQUIRE(s.groups.size() == 36);
  CHECK(s.groups[0].label == 1);   // batch 1: fused
  CHECK(s.groups[35].label == 0);  // batch 32: bsp
  CHECK(s.groups[0].line == 2);
  // batch, kv_len, then one indicator per collective.
  REQUIRE(s.features.size() == 4);
  CHECK(s.features[2].label() == "collective = ring");
  CHECK(s.groups[1].x == std::vector<double>{1, 1024, 0, 1});
}

TEST_CASE("select: the tree recovers a planted threshold, at a readable value, and leave-one-out gets it right") {
  const SelectionSet s = set_of(planted_csv([](int batch, int, const std::string&) { return batch <= 4 ? "fused" : "bsp"; }));
  const DecisionTree tree = tree_of(s);
  CHECK(tree.depth() == 1);
  CHECK(tree_rules(tree, s) == "if batch < 5:\n  fused (18 groups)\nelse:\n  bsp (18 groups)\n");
  const Evaluation e = evaluate(s, tree, 4);
  CHECK(e.train_accuracy == 1.0);
  CHECK(e.loo_accuracy == 1.0);  // every batch value keeps other groups in training
  CHECK(e.loo_slowdown_geomean == doctest::Approx(0.0));
  // Always bsp (the best single, 18 of 36 groups) costs the batch <= 4 groups 10%.
  CHECK(s.classes[e.best_single] == "bsp");
  CHECK(e.single_slowdown_max == doctest::Approx(0.1).epsilon(0.02));
  CHECK(e.single_slowdown_geomean > 0.04);
}

TEST_CASE("select: a rule over a number and a category, and the header and JSON of it") {
  const SelectionSet s = set_of(planted_csv([](int, int kv, const std::string& collective) {
    if (collective == "nccl") return "fused_coarse";
    return kv < 4096 ? "fused" : "bsp";
  }));
  const DecisionTree tree = tree_of(s);
  const Evaluation e = evaluate(s, tree, 4);
  CHECK(e.train_accuracy == 1.0);
  CHECK(e.loo_accuracy == 1.0);
  const std::string rules = tree_rules(tree, s);
  CAPTURE(rules);
  CHECK(rules.find("kv_len < 2500") != std::string::npos);  // between 1024 and 4096, the roundest
  CHECK(rules.find("collective is not") != std::string::npos);
  const std::string header = tree_header(tree, s, "a test");
  CHECK(header.find("inline const char* select_variant(const Features& f) {") != std::string::npos);
  CHECK(header.find("std::string_view collective;") != std::string::npos);
  CHECK(header.find("double kv_len;") != std::string::npos);
  const auto j = tree_json(tree, s);
  CHECK(j.contains("key"));
}

TEST_CASE("select: the copied tree predicts as OpenCV's own on its training data") {
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 40) / static_cast<double>(1ULL << 24);
  };
  std::vector<std::vector<double>> x;
  std::vector<std::size_t> y;
  for (int i = 0; i < 80; ++i) {
    const std::vector<double> row{next() * 100, next() * 8, std::floor(next() * 3)};
    x.push_back(row);
    y.push_back(row[0] > 50 ? (row[1] > 4 ? 2 : 1) : static_cast<std::size_t>(row[2]) % 2);
  }
  const DecisionTree tree = learn_tree(x, y, 3, 5);
  const std::vector<std::size_t> theirs = opencv_predictions(x, y, 3, 5);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(tree.predict(x[i]) == theirs[i]);
  // The same data give the same tree.
  const DecisionTree again = learn_tree(x, y, 3, 5);
  REQUIRE(again.nodes.size() == tree.nodes.size());
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) CHECK(again.nodes[i].threshold == tree.nodes[i].threshold);
}

TEST_CASE("select: errors name the results file, line and key") {
  const std::string csv = planted_csv([](int, int, const std::string&) { return "bsp"; });
  const ConfigError target = error_of([&] { build_selection_set(parse_results_table(csv, "r.csv"), "mapping", {}); });
  CHECK(target.location().file == "r.csv");
  CHECK(target.key_path() == "mapping");
  CHECK(std::string(target.what()).find("workload.batch") != std::string::npos);  // lists the swept keys
  CHECK(error_of([&] { set_of(csv, {"variant"}); }).key_path() == "variant");
  CHECK(error_of([&] { set_of(csv, {"batchh"}); }).key_path() == "batchh");
  CHECK(std::string(error_of([] { set_of("point,workload.variant,makespan_ns,status\n0,bsp,1,ok\n"); }).what())
            .find("no swept key besides the target") != std::string::npos);
  CHECK(std::string(error_of([] { set_of("point,workload.m,workload.variant,makespan_ns,status\n0,1,bsp,1,ok\n1,2,bsp,1,ok\n"); })
                        .what())
            .find("nothing to choose between") != std::string::npos);
  const ConfigError bad = error_of([] { set_of("point,workload.m,workload.variant,makespan_ns,status\n0,1,bsp,fast,ok\n1,1,pull,2,ok\n"); });
  CHECK(bad.location().line == 2);
  CHECK(bad.key_path() == "makespan_ns");
  CHECK(std::string(error_of([] { set_of("point,workload.m,workload.variant,makespan_ns,status\n0,1,bsp,1,ok\n1,2,pull,2,ok\n"); }).what())
            .find("no group") != std::string::npos);
  CHECK(std::string(error_of([] { set_of("a,b\n1,2\n"); }).what()).find("not a sweep's results.csv") != std::string::npos);
}

}  // namespace
}  // namespace tessera::app::select
