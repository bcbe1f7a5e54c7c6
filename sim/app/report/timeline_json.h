#pragma once
// timeline.json: one run as Chrome trace-event JSON (the object form), which opens in
// ui.perfetto.dev and chrome://tracing.
//
// Layout: a process per GPU ("GPU r") holding
//   - a track per stream, "kernels (stream s)": each kernel's launch latency ("launch") and
//     its execution (named after the kernel), from the result's breakdown;
//   - "where the time goes": the GPU's breakdown over time, a slice per stretch of one category;
//   with per-workgroup detail also
//   - a counter per XCD, "XCD d busy_slots": how many workgroup slots are occupied;
//   - a track per occupied workgroup slot, "XCD d / CU c" (+ " slot s" for s > 0): the
//     workgroup slices of the activity log, named and coloured by time category;
//   - a track per CU that released or acquired flags, "XCD d / CU c flags", with a 1 ns
//     slice at each release and acquire that anchors a flow arrow release -> acquire;
// and a process "links" with one counter per link class, "<class> links (mean)" (per-workgroup
// detail: one per link, "<link name>"), in utilisation_pct.
// Timestamps are microseconds with six decimals, so picoseconds print exactly. Slices that
// would overlap on one track (never for a correct activity log) go to extra tracks named
// "... (overlap k)", because trace viewers mis-draw partially overlapping slices.
// The output depends only on the inputs: the same result and log give the same bytes.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/run/run_result.h"
#include "workloads/replay/activity_log.h"

namespace tessera::app::report {

// `detail`: kKernels draws each GPU's kernel tracks, its breakdown track and one utilisation
// counter per link class (small); kWorkgroups adds a track per occupied workgroup slot, the flag
// tracks and arrows, the busy-slot counters and a counter per link (per-CU detail: large).
std::string timeline_json(const run::RunResult& result, const workloads::replay::ActivityLog& log,
                          workloads::replay::ActivityDetail detail = workloads::replay::ActivityDetail::kWorkgroups);

}  // namespace tessera::app::report
