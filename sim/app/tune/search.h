#pragma once
// How `tessera tune` walks a space (docs/tune.md, "Search"): pure logic over candidate indices,
// so that it is tested on objectives whose best point is known by construction. The caller's
// evaluators run the simulations (in parallel, over MPI ranks) and return a score per candidate.
//
// A candidate is an index into the product of the axes, the last axis varying fastest (a sweep's
// point order): with sizes {3, 4}, candidate 5 is (1, 1).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tessera::app::tune {

using Candidate = std::size_t;

// Lower is better: the objective first, then the makespan, then the candidate index (so that
// every ranking is total and the same on every machine).
struct Score {
  double objective = 0;
  double makespan_ns = 0;
  auto operator<=>(const Score&) const = default;
};

// One score per candidate, in the order given; nullopt for a candidate that could not run (an
// invalid combination, a failed run). Must return as many entries as it was given.
using Evaluator = std::function<std::vector<std::optional<Score>>(const std::vector<Candidate>&)>;

enum class SearchMethod { kAuto, kExhaustive, kHalving, kCoordinate };
std::string to_string(SearchMethod m);
// "auto", "exhaustive", "halving", "coordinate"; nullopt for anything else.
std::optional<SearchMethod> search_method_from(const std::string& text);

struct SearchSettings {
  SearchMethod method = SearchMethod::kAuto;
  std::size_t budget = 16;  // the most full-fidelity runs (halving: the survivors of the screening)
  Candidate start = 0;      // coordinate descent starts here
};

struct SearchOutcome {
  SearchMethod method = SearchMethod::kExhaustive;  // the one used (never kAuto)
  // Every candidate run at full fidelity, in the order they were run, with its score.
  std::vector<std::pair<Candidate, std::optional<Score>>> evaluated;
  std::size_t proxy_runs = 0;     // the screening round's runs (halving)
  std::vector<std::string> log;   // one line per round, for the report
};

// The axes' value indices of a candidate, and back.
std::vector<std::size_t> coordinates_of(Candidate c, const std::vector<std::size_t>& sizes);
Candidate candidate_of(const std::vector<std::size_t>& coordinates, const std::vector<std::size_t>& sizes);

// auto: exhaustive when the space has at most `budget` candidates, else halving when a proxy
// evaluator is given, else coordinate descent.
// exhaustive: every candidate at full fidelity.
// halving: every candidate on the proxy, then the best `budget` of them at full fidelity.
// coordinate: from `start`, each axis in turn tries all its values with the others held, and moves
// to the best (staying on ties); rounds repeat until one moves nothing or `budget` runs are spent.
// Throws std::invalid_argument for halving without a proxy or a budget of 0.
SearchOutcome search(const std::vector<std::size_t>& sizes, const SearchSettings& settings, const Evaluator& full,
                     const Evaluator* proxy);

}  // namespace tessera::app::tune
