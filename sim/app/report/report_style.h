#pragma once
// The stylesheet of the report pages (report.html, compare.html), inlined into each: system fonts
// only, so that a page renders offline exactly as it does online.
#include <string_view>

namespace tessera::app::report {

inline constexpr std::string_view kReportStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#222;max-width:1060px;margin:24px auto;padding:0 16px;line-height:1.4}
h1{font-size:1.6em;margin:0 0 4px}
h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:2em}
h3{font-size:1.05em;margin:1.2em 0 4px}
table{border-collapse:collapse;margin:8px 0;font-size:.88em}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f4f4f4;font-weight:600}
.share{display:block;color:#666;font-size:.85em}
.text{text-align:left}
td.text{white-space:nowrap}
caption{text-align:left}
.note{color:#666;font-size:.9em}
ul.legend{display:flex;flex-wrap:wrap;gap:6px 16px;list-style:none;padding:0;margin:8px 0;font-size:.9em}
li.legend-group{font-weight:600}
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border:1px solid rgba(0,0,0,.25)}
svg.chart{width:100%;height:auto;display:block;margin:4px 0 12px}
svg text{font-size:12px;fill:#222}
svg text.axis{font-size:11px;fill:#666}
svg text.note{font-size:12px;fill:#444}
table.heat td{min-width:3.5em}
td.na{color:#999;background:#f4f4f4}
pre.config{background:#f7f7f7;border:1px solid #ddd;padding:8px;overflow-x:auto;font-size:.85em}
)";

}  // namespace tessera::app::report
