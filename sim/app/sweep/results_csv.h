#pragma once
// results.csv: one row per point in point order (never in the order points finished), so that
// the file is byte-identical for any --jobs and any number of MPI ranks, apart from wall_s.
#include <string>
#include <vector>

#include "sim/app/sweep/point_result.h"

namespace tessera::app::sweep {

// The columns: point, every swept key, makespan_ns, with `collective` a collective's time_us,
// algbw_GBps and busbw_GBps (nccl-tests' figures), the four work parts and the three taxes
// (*_ns), l2_hit_rate, mall_hit_rate, events, status (ok/failed), error, wall_s.
std::vector<std::string> results_header(const std::vector<std::string>& swept_keys, bool collective = false);

// The cells of one row; empty where the summary lacks a value (or the point failed).
std::vector<std::string> results_row(const PointResult& result, const std::vector<std::string>& values,
                                     bool collective = false);

// Whether a point ran a collective: the study's table then has the collective columns (a study of
// other kinds keeps its columns as they were).
bool has_collective_columns(const std::vector<PointResult>& results);

// `values[i]`: point i's swept values as text; `results[i]`: point i's result.
std::string results_csv(const std::vector<std::string>& swept_keys, const std::vector<std::vector<std::string>>& values,
                        const std::vector<PointResult>& results);

// A CSV cell: quoted (with doubled quotes) when it holds a comma, a quote or a line break.
std::string csv_cell(const std::string& text);

}  // namespace tessera::app::sweep
