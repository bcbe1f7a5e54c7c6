#pragma once
// What is wrong with a pattern's parameters, named by the config key a user would change.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "models/system/system_spec.h"

namespace tessera::workloads::patterns {

struct ParamProblem {
  std::string key;      // the `workload:` key to change, e.g. "k"
  std::string message;  // what is wrong, with the numbers involved
};

// The generators' way of refusing: std::invalid_argument("<workload>.<key>: <message>").
inline void throw_if_problem(const std::string& workload, const std::optional<ParamProblem>& problem) {
  if (problem) throw std::invalid_argument(workload + "." + problem->key + ": " + problem->message);
}

// The rank count every multi-GPU generator checks: at least one, at most the system's GPUs.
inline std::optional<ParamProblem> ranks_problem(std::uint32_t ranks, const models::SystemSpec& system) {
  if (ranks == 0) return ParamProblem{"ranks", "the system has no GPUs"};
  if (ranks > system.num_gpus) {
    return ParamProblem{"ranks",
                        fmt::format("{} ranks but the system '{}' has {} GPU(s)", ranks, system.name, system.num_gpus)};
  }
  return std::nullopt;
}

}  // namespace tessera::workloads::patterns
