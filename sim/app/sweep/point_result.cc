#include "sim/app/sweep/point_result.h"

namespace tessera::app::sweep {

nlohmann::json to_json(const PointResult& r) {
  return {{"index", r.index}, {"ok", r.ok}, {"resumed", r.resumed}, {"error", r.error}, {"wall_s", r.wall_s},
          {"summary", r.result ? run::to_json(*r.result) : nlohmann::json()}};
}

PointResult point_result_from_json(const nlohmann::json& j) {
  PointResult r;
  r.index = j.at("index").get<std::size_t>();
  r.ok = j.at("ok").get<bool>();
  r.resumed = j.at("resumed").get<bool>();
  r.error = j.at("error").get<std::string>();
  r.wall_s = j.at("wall_s").get<double>();
  if (const nlohmann::json& summary = j.at("summary"); !summary.is_null()) r.result = run::run_result_from_json(summary);
  return r;
}

}  // namespace tessera::app::sweep
