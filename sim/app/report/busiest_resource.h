#pragma once
// The resource a run kept busiest: the highest utilisation of one resource over the run, across
// every resource class. A low figure says the run is not bandwidth-bound (latency or too few
// bytes in flight hold it back). Shown by `tessera run`'s text and by compare.html.
#include <optional>
#include <string>

#include "sim/app/run/run_result.h"

namespace tessera::app::report {

struct BusiestResource {
  std::string resource_class;  // "xgmi"
  std::string resource;        // "gpu[0]->gpu[3]"
  double utilisation = 0.0;    // its bytes over (bandwidth x makespan), 0 to 1
};

// None when no resource carried bytes (or the run recorded no traffic).
std::optional<BusiestResource> busiest_resource(const run::RunResult& r);

// "xgmi gpu[0]->gpu[3] at 97.3% of its bandwidth"
std::string describe(const BusiestResource& b);

}  // namespace tessera::app::report
