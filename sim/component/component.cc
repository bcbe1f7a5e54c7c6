#include "sim/component/component.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/component/instance_name.h"

namespace tessera::sim {

Component::Component(Context context, std::string name) : context_(context), name_(std::move(name)) {
  if (!is_valid_instance_name(name_)) throw std::invalid_argument(fmt::format("invalid component name '{}'", name_));
}

std::string Component::stat_name(std::string_view stat) const { return fmt::format("{}.{}", name_, stat); }

stats::Counter& Component::add_counter(std::string_view stat, stats::Unit unit, std::string_view doc) {
  return context_.stats.counter(stat_name(stat), unit, doc);
}

stats::Accumulator& Component::add_accumulator(std::string_view stat, stats::Unit unit, std::string_view doc) {
  return context_.stats.accumulator(stat_name(stat), unit, doc);
}

stats::Histogram& Component::add_histogram(std::string_view stat, stats::Unit unit, std::string_view doc, double lo,
                                           double width, std::size_t bins) {
  return context_.stats.histogram(stat_name(stat), unit, doc, lo, width, bins);
}

}  // namespace tessera::sim
