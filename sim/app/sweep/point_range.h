#pragma once
// --points A:B: the slice of a study's points one invocation runs (a Slurm array task, say).
#include <cstddef>
#include <string>

namespace tessera::app::sweep {

struct PointRange {
  std::size_t begin = 0;  // first point
  std::size_t end = 0;    // one past the last point
  bool whole = true;      // no --points: every point, and the study's results are written
};

// "A:B" (points A to B-1), "A:" (A to the end), ":B"; B is clamped to num_points. Throws
// UsageError (naming --points) when malformed or empty.
PointRange parse_point_range(const std::string& text, std::size_t num_points);

}  // namespace tessera::app::sweep
