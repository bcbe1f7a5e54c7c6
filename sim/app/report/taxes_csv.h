#pragma once
// taxes.csv: where the time of each run goes, one row per (run, scope).
//
// Columns: run, scope, rank, kernel, span_ns, compute_ns, memory_ns, communication_ns,
// idle_ns, bulk_synchronous_ns, inter_kernel_locality_ns, launch_overhead_ns.
// scope is "total" (span = makespan_ns), "gpu" (one per summary["per_gpu"] entry, span =
// its span_ns) or "kernel" (one per summary["kernels"] entry, span = end_ns - launch_ns).
// Within a row the seven category columns sum to span_ns (as far as the summary's rounding
// allows). Numbers print with three decimals; a cell is empty where it does not apply (rank
// and kernel of the total row) or where the summary has no value. A summary without
// taxes_ns (microbench, PHOLD) gives its total row only, with empty category cells.
#include <string>
#include <vector>

#include "sim/app/report/labeled_run.h"

namespace tessera::app::report {

std::string taxes_csv(const std::vector<LabeledRun>& runs);

}  // namespace tessera::app::report
