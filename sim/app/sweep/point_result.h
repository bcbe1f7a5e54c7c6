#pragma once
// What a sweep knows about one point once it is done: its summary, or why it failed.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace tessera::app::sweep {

struct PointResult {
  std::size_t index = 0;
  bool ok = false;
  bool resumed = false;     // read back from points/NNNN.json by --resume, not run now
  std::string error;        // when !ok: the exception's message
  double wall_s = 0.0;      // wall-clock time of the point (trace generation and replay)
  nlohmann::json summary;   // the run summary (run_workload.h); null when !ok
  bool abandoned = false;   // stopped by an interrupt before it finished: no file, not tabulated
};

// The form that travels between MPI ranks: {index, ok, error, wall_s, summary}.
nlohmann::json to_json(const PointResult& r);
PointResult point_result_from_json(const nlohmann::json& j);

}  // namespace tessera::app::sweep
