#pragma once
// Owns every statistic of one simulation under its hierarchical name, with its unit and
// meaning. Addresses are stable (deque storage), so components keep a reference and update
// it directly. A run takes a snapshot at its end (stat_snapshot.h), which its result carries out.
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json_fwd.hpp>

#include "sim/stats/stat_snapshot.h"
#include "sim/stats/stat_unit.h"
#include "sim/stats/statistic.h"

namespace tessera::sim::stats {

class StatRegistry {
 public:
  Counter& counter(std::string_view name, Unit unit, std::string_view doc);
  Accumulator& accumulator(std::string_view name, Unit unit, std::string_view doc);
  Histogram& histogram(std::string_view name, Unit unit, std::string_view doc, double lo, double width,
                       std::size_t bins);

  std::size_t size() const { return index_.size(); }
  bool contains(std::string_view name) const { return index_.find(std::string(name)) != index_.end(); }

  // Every statistic's value now, in name order (deterministic output).
  StatSnapshot snapshot() const;
  nlohmann::json to_json() const;

 private:
  struct Entry {
    Unit unit;
    std::string doc;
    std::variant<Counter*, Accumulator*, Histogram*> stat;
  };
  void add(std::string_view name, Entry entry);

  std::deque<Counter> counters_;
  std::deque<Accumulator> accumulators_;
  std::deque<Histogram> histograms_;
  std::map<std::string, Entry, std::less<>> index_;
};

}  // namespace tessera::sim::stats
