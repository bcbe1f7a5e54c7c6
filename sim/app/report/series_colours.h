#pragma once
// Distinct colours for data series (runs in the utilisation charts, cases in the validation
// scatter plot), in series order; they repeat after eight.
#include <array>
#include <cstddef>
#include <string_view>

namespace tessera::app::report {

inline constexpr std::array<std::string_view, 8> kSeriesColours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                                                   "#8c564b", "#e377c2", "#17becf", "#bcbd22"};

constexpr std::string_view series_colour(std::size_t index) { return kSeriesColours[index % kSeriesColours.size()]; }

}  // namespace tessera::app::report
