#pragma once
// results.csv: one row per point in point order (never in the order points finished), so that
// the file is byte-identical for any --jobs and any number of MPI ranks, apart from wall_s.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/sweep/point_result.h"

namespace tessera::app::sweep {

// Which optional columns a study's table has, and what they need from all of its rows.
struct ResultColumns {
  bool collective = false;  // a point ran a collective: time_us, algbw_GBps, busbw_GBps
  bool sampled = false;     // `sweep --uncertainty N`: the sampled makespans' quantiles, fastest_share
  // Per row (results' order): the share of samples in which the point was the fastest of the points
  // that differ from it only in the swept variant (`workload.variant` or `workload.mapping`); none
  // when the study sweeps no variant or the point has no samples.
  std::vector<std::optional<double>> fastest_share;
};

// `values[i]`: row i's swept values as text (keys as `swept_keys`).
ResultColumns result_columns(const std::vector<std::string>& swept_keys,
                             const std::vector<std::vector<std::string>>& values,
                             const std::vector<PointResult>& results);

// The columns: point, every swept key, makespan_ns, when sampled makespan_p5_ns, makespan_median_ns,
// makespan_p95_ns (over the N sampled systems; quantiles linear between order statistics) and
// fastest_share, when collective a collective's time_us, algbw_GBps and busbw_GBps (nccl-tests'
// figures), the four work parts and the three taxes (*_ns), l2_hit_rate, mall_hit_rate, events,
// status (ok/failed), error, wall_s.
std::vector<std::string> results_header(const std::vector<std::string>& swept_keys, const ResultColumns& columns = {});

// The cells of row `row`; empty where the summary lacks a value (or the point failed).
std::vector<std::string> results_row(const PointResult& result, const std::vector<std::string>& values,
                                     const ResultColumns& columns = {}, std::size_t row = 0);

// `values[i]`: point i's swept values as text; `results[i]`: point i's result.
std::string results_csv(const std::vector<std::string>& swept_keys, const std::vector<std::vector<std::string>>& values,
                        const std::vector<PointResult>& results);

// A CSV cell: quoted (with doubled quotes) when it holds a comma, a quote or a line break.
std::string csv_cell(const std::string& text);

}  // namespace tessera::app::sweep
