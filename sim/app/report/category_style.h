#pragma once
// One colour per time category, shared by timeline.json and report.html so that a slice in
// Perfetto and a bar in the report look alike. Taxes get warm colours, work cool ones.
// Trace viewers accept only reserved colour names for `cname` (catapult's
// tracing/base/color_scheme.html); css_colour is the RGB that name stands for there.
#include <array>
#include <string_view>

#include "workloads/replay/activity_log.h"

namespace tessera::app::report {

using workloads::replay::TimeCategory;

struct CategoryStyle {
  std::string_view trace_cname;
  std::string_view css_colour;
};

// Every category in the order of TimeCategory (work first, then the taxes): the column order
// of taxes.csv and the stacking order of the report's bars.
inline constexpr std::array<TimeCategory, workloads::replay::kNumTimeCategories> kAllCategories = {
    TimeCategory::kCompute,         TimeCategory::kMemory,
    TimeCategory::kCommunication,   TimeCategory::kIdle,
    TimeCategory::kBulkSynchronous, TimeCategory::kInterKernelLocality,
    TimeCategory::kLaunchOverhead,
};

constexpr CategoryStyle category_style(TimeCategory c) {
  switch (c) {
    case TimeCategory::kCompute: return {"thread_state_running", "#7ec894"};         // seafoam green
    case TimeCategory::kMemory: return {"thread_state_runnable", "#85a0d2"};         // vista blue
    case TimeCategory::kCommunication: return {"background_memory_dump", "#00b4b4"};  // teal
    case TimeCategory::kIdle: return {"generic_work", "#7d7d7d"};                    // grey
    case TimeCategory::kBulkSynchronous: return {"terrible", "#b40000"};             // dark red
    case TimeCategory::kInterKernelLocality: return {"thread_state_iowait", "#ff8c00"};  // orange
    case TimeCategory::kLaunchOverhead: return {"bad", "#b47d00"};                   // dark goldenrod
  }
  return {"generic_work", "#7d7d7d"};
}

}  // namespace tessera::app::report
