#pragma once
// What a sweep knows about one point once it is done: its result, or why it failed.
#include <cstddef>
#include <string>

#include <optional>

#include <nlohmann/json.hpp>

#include "sim/app/run/run_result.h"

namespace tessera::app::sweep {

struct PointResult {
  std::size_t index = 0;
  bool ok = false;
  bool resumed = false;     // read back from points/NNNN.json by --resume, not run now
  std::string error;        // when !ok: the exception's message
  double wall_s = 0.0;      // wall-clock time of the point (trace generation and replay)
  std::optional<run::RunResult> result;  // when ok
  bool abandoned = false;   // stopped by an interrupt before it finished: no file, not tabulated
};

// The form that travels between MPI ranks: {index, ok, error, wall_s, summary}.
nlohmann::json to_json(const PointResult& r);
PointResult point_result_from_json(const nlohmann::json& j);

}  // namespace tessera::app::sweep
