#pragma once
// The legend of the stacked time bars: a swatch per time category, work first and the taxes
// after, each group named, so that a reader tells the three taxes from the useful work at a
// glance. A <ul class="legend"> of <li>, one per category, with data-category.
#include <string>

namespace tessera::app::report::charts {

std::string category_legend();

}  // namespace tessera::app::report::charts
