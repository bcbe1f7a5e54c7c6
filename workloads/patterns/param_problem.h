#pragma once
// What is wrong with a pattern's parameters, named by the config key a user would change.
#include <optional>
#include <stdexcept>
#include <string>

namespace tessera::workloads::patterns {

struct ParamProblem {
  std::string key;      // the `workload:` key to change, e.g. "k"
  std::string message;  // what is wrong, with the numbers involved
};

// The generators' way of refusing: std::invalid_argument("<workload>.<key>: <message>").
inline void throw_if_problem(const std::string& workload, const std::optional<ParamProblem>& problem) {
  if (problem) throw std::invalid_argument(workload + "." + problem->key + ": " + problem->message);
}

}  // namespace tessera::workloads::patterns
