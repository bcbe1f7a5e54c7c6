#include "sim/stats/stat_registry.h"

#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tessera::sim::stats {

std::string_view unit_suffix(Unit unit) {
  switch (unit) {
    case Unit::kCount: return "count";
    case Unit::kEvents: return "events";
    case Unit::kBytes: return "bytes";
    case Unit::kPs: return "ps";
    case Unit::kBytesPerS: return "bytes_per_s";
    case Unit::kFrac: return "frac";
  }
  return "count";
}

void StatRegistry::add(std::string_view name, Entry entry) {
  if (name.empty()) throw std::invalid_argument("a statistic needs a name");
  if (!index_.emplace(std::string(name), std::move(entry)).second) {
    throw std::invalid_argument(fmt::format("statistic '{}' is registered twice", name));
  }
}

Counter& StatRegistry::counter(std::string_view name, Unit unit, std::string_view doc) {
  Counter& c = counters_.emplace_back();
  add(name, Entry{unit, std::string(doc), &c});
  return c;
}

Accumulator& StatRegistry::accumulator(std::string_view name, Unit unit, std::string_view doc) {
  Accumulator& a = accumulators_.emplace_back();
  add(name, Entry{unit, std::string(doc), &a});
  return a;
}

Histogram& StatRegistry::histogram(std::string_view name, Unit unit, std::string_view doc, double lo,
                                   double width, std::size_t bins) {
  Histogram& h = histograms_.emplace_back(lo, width, bins);
  add(name, Entry{unit, std::string(doc), &h});
  return h;
}

nlohmann::json StatRegistry::to_json() const { return stats::to_json(snapshot()); }

StatSnapshot StatRegistry::snapshot() const {
  StatSnapshot out;
  out.entries.reserve(index_.size());
  for (const auto& [name, entry] : index_) {
    StatSnapshot::Entry e{name, entry.unit, entry.doc, Counter{}};
    std::visit([&e](const auto* stat) { e.value = *stat; }, entry.stat);
    out.entries.push_back(std::move(e));
  }
  return out;
}

nlohmann::json to_json(const StatSnapshot& snapshot) {
  nlohmann::json out = nlohmann::json::object();
  for (const StatSnapshot::Entry& entry : snapshot.entries) {
    nlohmann::json j;
    j["unit"] = unit_suffix(entry.unit);
    j["doc"] = entry.doc;
    if (const auto* c = std::get_if<Counter>(&entry.value)) {
      j["type"] = "counter";
      j["value"] = c->value();
    } else if (const auto* a = std::get_if<Accumulator>(&entry.value)) {
      j["type"] = "accumulator";
      j["count"] = a->count();
      j["sum"] = a->sum();
      j["mean"] = a->mean();
      j["min"] = a->min();
      j["max"] = a->max();
    } else {
      const Histogram& h = std::get<Histogram>(entry.value);
      j["type"] = "histogram";
      j["lo"] = h.lo();
      j["width"] = h.width();
      j["counts"] = h.counts();
      j["underflow"] = h.underflow();
      j["overflow"] = h.overflow();
      j["total"] = h.total();
    }
    out[entry.name] = std::move(j);
  }
  return out;
}

}  // namespace tessera::sim::stats
