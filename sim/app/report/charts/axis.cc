#include "sim/app/report/charts/axis.h"

#include <iterator>

#include <fmt/format.h>

#include "sim/app/report/html_escape.h"
#include "sim/app/report/report_format.h"

namespace tessera::app::report::charts {
namespace {

std::string_view scale_name(const Scale& scale) { return scale.is_log() ? "log" : "linear"; }

}  // namespace

std::string horizontal_axis(const Scale& scale, double x_px, double y_px, double length_px, double grid_px,
                            std::string_view title) {
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, R"(<g class="axis" data-scale="{}">)", scale_name(scale));
  out += '\n';
  fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#999"/>)", format_coordinate(x_px),
                 format_coordinate(y_px), format_coordinate(x_px + length_px));
  out += '\n';
  for (const AxisTick& tick : scale.time_ticks()) {
    const double x = x_px + scale.fraction(tick.value_ns) * length_px;
    if (grid_px > 0) {
      fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e3e3e3"/>)", format_coordinate(x),
                     format_coordinate(y_px - grid_px), format_coordinate(y_px));
    }
    // The first label starts at the axis' start rather than straddling it.
    const bool first = scale.fraction(tick.value_ns) == 0.0;
    fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#999"/><text class="axis" x="{0}" y="{3}" text-anchor="{4}">{5}</text>)",
                   format_coordinate(x), format_coordinate(y_px), format_coordinate(y_px + 4),
                   format_coordinate(y_px + 16), first ? "start" : "middle", html_escape(tick.label));
    out += '\n';
  }
  if (!title.empty()) {
    fmt::format_to(o, R"(<text class="axis axis-title" x="{}" y="{}" text-anchor="end">{}</text>)",
                   format_coordinate(x_px + length_px), format_coordinate(y_px + 30), html_escape(title));
    out += '\n';
  }
  out += "</g>\n";
  return out;
}

std::string vertical_axis(const Scale& scale, double x_px, double y_px, double length_px, double grid_px,
                          std::string_view title, double title_offset_px) {
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, R"(<g class="axis" data-scale="{}">)", scale_name(scale));
  out += '\n';
  fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#999"/>)", format_coordinate(x_px),
                 format_coordinate(y_px), format_coordinate(y_px - length_px));
  out += '\n';
  for (const AxisTick& tick : scale.time_ticks()) {
    const double y = y_px - scale.fraction(tick.value_ns) * length_px;
    if (grid_px > 0) {
      fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#e3e3e3"/>)", format_coordinate(x_px),
                     format_coordinate(y), format_coordinate(x_px + grid_px));
    }
    fmt::format_to(o, R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#999"/><text class="axis" x="{3}" y="{4}" text-anchor="end">{5}</text>)",
                   format_coordinate(x_px - 4), format_coordinate(y), format_coordinate(x_px), format_coordinate(x_px - 6),
                   format_coordinate(y + 4), html_escape(tick.label));
    out += '\n';
  }
  if (!title.empty()) {
    const double tx = x_px - title_offset_px;
    const double ty = y_px - length_px / 2;
    fmt::format_to(o, R"svg(<text class="axis axis-title" x="{0}" y="{1}" transform="rotate(-90 {0} {1})" text-anchor="middle">{2}</text>)svg",
                   format_coordinate(tx), format_coordinate(ty), html_escape(title));
    out += '\n';
  }
  out += "</g>\n";
  return out;
}

}  // namespace tessera::app::report::charts
