#pragma once
// points/NNNN.json: each finished point's full summary, written atomically as soon as the
// point finishes, with a "sweep_point" record (index, swept values, config hash, wall time)
// by which --resume recognises a point that need not run again.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/sweep/point_result.h"

namespace tessera::app::sweep {

// DIR/points/0007.json; at least four digits, more when the study has more points.
std::filesystem::path point_file(const std::filesystem::path& out_dir, std::size_t index, std::size_t num_points);

// keys/values: the swept keys and the point's values as text (for a reader of the file).
void write_point_file(const std::filesystem::path& path, const PointResult& result, const std::vector<std::string>& keys,
                      const std::vector<std::string>& values, const std::string& config_hash);

// The point read back when its file exists and was produced from the same config (same
// index and hash); nullopt otherwise (missing, unreadable or stale: the point runs again).
std::optional<PointResult> read_finished_point(const std::filesystem::path& path, std::size_t index,
                                               const std::string& config_hash);

}  // namespace tessera::app::sweep
