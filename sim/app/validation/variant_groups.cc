#include "sim/app/validation/variant_groups.h"

#include <algorithm>
#include <map>

namespace tessera::app::validation {

double VariantGroup::measured_gap_percent() const {
  if (variants.size() < 2) return 0;
  return 100.0 * (variants[1].measured_ns - variants[0].measured_ns) / variants[0].measured_ns;
}

std::vector<VariantGroup> group_variants(const std::vector<ValidationCase>& cases) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ValidationCase*>> by_key;
  for (const ValidationCase& c : cases) {
    if (!c.predicted_ns) continue;
    if (by_key.find(c.group_key) == by_key.end()) order.push_back(c.group_key);
    by_key[c.group_key].push_back(&c);
  }
  std::vector<VariantGroup> groups;
  for (const std::string& key : order) {
    const auto& members = by_key[key];
    VariantGroup g;
    g.case_name = members.front()->source->case_name;
    g.params_text = members.front()->params_text;
    g.ranks = members.front()->source->tessera_ranks;
    for (const ValidationCase* c : members) {
      auto it = std::find_if(g.variants.begin(), g.variants.end(), [&](const VariantTime& v) { return v.variant == c->variant; });
      if (it == g.variants.end()) {
        g.variants.push_back({c->variant, 0, 0, 0});
        it = g.variants.end() - 1;
      }
      it->measured_ns += c->measured_ns;
      it->predicted_ns += *c->predicted_ns;
      ++it->results;
    }
    if (g.variants.size() < 2) continue;
    for (VariantTime& v : g.variants) {
      v.measured_ns /= static_cast<double>(v.results);
      v.predicted_ns /= static_cast<double>(v.results);
    }
    // Stable sorts: equal times keep the order of first appearance.
    std::stable_sort(g.variants.begin(), g.variants.end(),
                     [](const VariantTime& a, const VariantTime& b) { return a.measured_ns < b.measured_ns; });
    std::vector<VariantTime> by_prediction = g.variants;
    std::stable_sort(by_prediction.begin(), by_prediction.end(),
                     [](const VariantTime& a, const VariantTime& b) { return a.predicted_ns < b.predicted_ns; });
    for (const VariantTime& v : by_prediction) g.predicted_order.push_back(v.variant);
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace tessera::app::validation
