#pragma once
// report.html: one self-contained page about one or more runs (variants, sweep points),
// readable offline: inline CSS and SVG, no scripts, no fonts or images fetched.
//
// Sections: the runs and their metadata; stacked bars of where the time goes (one bar per
// run, length = makespan, one segment per time category, on a log axis when the makespans differ
// by more than charts::kAutoLogRatio; then one bar per GPU of each run, labelled "GPU r") with
// a legend that groups work and taxes, tooltips (<title>, in ns and us) and tables (one time
// unit each, named); cache hit rates (L2 and MALL, and L2 per GPU and XCD as a heat table);
// bytes per link class; link utilisation over time per link class (the average over the links
// of the class, from summary["link_utilisation"] where present); and each run's config text.
// Each bar is a <g class="run-bar"> (class="gpu-bar" per GPU) holding its label and segments.
// Every bar segment is an SVG <rect> with class="tax-bar" (taxes) or class="work-bar" (work
// and idle) and data-category="<category>", data-run="<label>" (and data-rank="<r>" per GPU);
// a run without attribution gets one class="total-bar" data-category="makespan" instead.
// All text is HTML-escaped. Same runs in, same bytes out (wall-clock fields are not shown).
#include <string>
#include <vector>

#include "sim/app/report/labeled_run.h"

namespace tessera::app::report {

std::string report_html(const std::vector<LabeledRun>& runs);

}  // namespace tessera::app::report
