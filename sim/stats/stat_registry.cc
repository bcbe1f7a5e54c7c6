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

nlohmann::json StatRegistry::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, entry] : index_) {
    nlohmann::json j;
    j["unit"] = unit_suffix(entry.unit);
    j["doc"] = entry.doc;
    if (const auto* c = std::get_if<Counter*>(&entry.stat)) {
      j["type"] = "counter";
      j["value"] = (*c)->value();
    } else if (const auto* a = std::get_if<Accumulator*>(&entry.stat)) {
      j["type"] = "accumulator";
      j["count"] = (*a)->count();
      j["sum"] = (*a)->sum();
      j["mean"] = (*a)->mean();
      j["min"] = (*a)->min();
      j["max"] = (*a)->max();
    } else {
      const Histogram& h = *std::get<Histogram*>(entry.stat);
      j["type"] = "histogram";
      j["lo"] = h.lo();
      j["width"] = h.width();
      j["counts"] = h.counts();
      j["underflow"] = h.underflow();
      j["overflow"] = h.overflow();
      j["total"] = h.total();
    }
    out[name] = std::move(j);
  }
  return out;
}

}  // namespace tessera::sim::stats
