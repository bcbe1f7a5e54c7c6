#include "sim/app/sweep/point_store.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/app/atomic_file.h"

namespace tessera::app::sweep {

namespace fs = std::filesystem;

fs::path point_file(const fs::path& out_dir, std::size_t index, std::size_t num_points) {
  std::size_t digits = 4;
  for (std::size_t n = num_points > 0 ? num_points - 1 : 0; n >= 10000; n /= 10) ++digits;
  return out_dir / "points" / fmt::format("{:0{}}.json", index, digits);
}

void write_point_file(const fs::path& path, const PointResult& result, const std::vector<std::string>& keys,
                      const std::vector<std::string>& values, const std::string& config_hash) {
  nlohmann::json j = result.result ? run::to_json(*result.result) : nlohmann::json::object();
  nlohmann::json swept = nlohmann::json::object();
  for (std::size_t k = 0; k < keys.size() && k < values.size(); ++k) swept[keys[k]] = values[k];
  j["sweep_point"] = {{"index", result.index}, {"values", swept}, {"config_hash", config_hash}, {"wall_s", result.wall_s}};
  write_file_atomically(path, j.dump(2) + "\n");
}

std::optional<PointResult> read_finished_point(const fs::path& path, std::size_t index, const std::string& config_hash) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("sweep_point")) return std::nullopt;
  try {
    const nlohmann::json& meta = j["sweep_point"];
    if (meta.at("index").get<std::size_t>() != index || meta.at("config_hash").get<std::string>() != config_hash) {
      return std::nullopt;
    }
    PointResult r;
    r.index = index;
    r.ok = true;
    r.resumed = true;
    r.wall_s = meta.at("wall_s").get<double>();
    j.erase("sweep_point");
    r.result = run::run_result_from_json(j);
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // not a file this program wrote: run the point again
  }
}

}  // namespace tessera::app::sweep
