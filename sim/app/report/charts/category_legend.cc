#include "sim/app/report/charts/category_legend.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/app/report/category_style.h"

namespace tessera::app::report::charts {

std::string category_legend() {
  std::string out = "<ul class=\"legend\">\n";
  auto o = std::back_inserter(out);
  bool taxes_started = false;
  out += "<li class=\"legend-group\">work:</li>\n";
  for (TimeCategory c : kAllCategories) {
    const bool tax = workloads::replay::is_tax(c);
    if (tax && !taxes_started) {
      out += "<li class=\"legend-group\">taxes:</li>\n";
      taxes_started = true;
    }
    const std::string_view name = workloads::replay::to_string(c);
    std::string readable(name);
    std::replace(readable.begin(), readable.end(), '_', ' ');
    fmt::format_to(o, "<li data-category=\"{}\"><span class=\"swatch\" style=\"background:{}\"></span>{}{}</li>\n", name,
                   category_style(c).css_colour, readable, tax ? " (tax)" : "");
  }
  out += "</ul>\n";
  return out;
}

}  // namespace tessera::app::report::charts
