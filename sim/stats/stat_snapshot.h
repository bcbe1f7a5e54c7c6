#pragma once
// The values of every registered statistic at one moment, detached from the simulation that
// owned them: what a run's result carries out (WorkloadResult::statistics) and `run --out`
// writes as stats.json. Entries keep the registry's name order, so the output is deterministic.
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/stats/statistic.h"
#include "sim/stats/stat_unit.h"

namespace tessera::sim::stats {

struct StatSnapshot {
  struct Entry {
    std::string name;
    Unit unit = Unit::kCount;
    std::string doc;
    std::variant<Counter, Accumulator, Histogram> value;
  };
  std::vector<Entry> entries;  // in name order
};

// One object keyed by statistic name: {unit, doc, type, and the values of its type}.
nlohmann::json to_json(const StatSnapshot& snapshot);

}  // namespace tessera::sim::stats
