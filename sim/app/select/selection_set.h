#pragma once
// What `tessera select` learns from (docs/tune.md, "tessera select"): a sweep's points grouped by
// every swept key but the target (the points of a group differ only in the variant), each group's
// label (its fastest variant) and features (the values of the chosen keys: numbers, quantities
// with units in their base unit, or categories as one indicator per value).
#include <cstddef>
#include <string>
#include <vector>

#include "sim/app/select/results_table.h"

namespace tessera::app::select {

struct Feature {
  std::string column;    // "workload.batch"
  std::string short_name;  // "batch": the last segment, or the whole path where two would collide
  bool numeric = true;
  std::string category;  // a categorical column's value this indicator is 1 for ("nccl")
  // "batch", "collective = nccl": how a rule names it.
  std::string label() const;
};

struct Group {
  int line = 0;                        // the results file's line of the group's first row
  std::vector<double> x;               // one value per feature
  std::vector<std::string> values;     // the feature columns' cells, as written
  std::vector<double> makespan_ns;     // per class
  std::size_t label = 0;               // the fastest class (the first listed on a tie)
};

struct SelectionSet {
  std::string target;                  // the target column ("workload.variant")
  std::vector<std::string> classes;    // its values, in order of first appearance
  std::vector<std::string> feature_columns;
  std::vector<Feature> features;
  std::vector<Group> groups;           // the complete ones (every class ran), in order of first appearance
  std::size_t incomplete_groups = 0;   // groups where some class failed or was not run: left out
};

// The swept keys of a sweep's results: the columns between `point` and `makespan_ns`.
std::vector<std::string> swept_columns(const ResultsTable& table);

// Throws config::ConfigError naming the results file, line and column: no such target or feature
// column (target and features name swept keys, by path or last segment), a feature that is the
// target, a makespan that is not a number, fewer than two classes, no complete group.
// `features` empty: every swept key but the target.
SelectionSet build_selection_set(const ResultsTable& table, const std::string& target,
                                 const std::vector<std::string>& features);

}  // namespace tessera::app::select
