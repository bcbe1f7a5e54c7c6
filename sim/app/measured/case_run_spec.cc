#include "sim/app/measured/case_run_spec.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"
#include "workloads/patterns/pattern_kinds.h"

namespace tessera::app::measured {
namespace {

run::RunSpec read_case(const MeasuredCase& result, const std::string& system, const nlohmann::json& workload) {
  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const sim::config::ConfigLoader loader(resolver);
  // JSON is YAML: the workload map keeps its keys and values, and errors point into this text.
  const std::string text = fmt::format("system: {}\nworkload: {}\n", nlohmann::json(system).dump(), workload.dump());
  return run::read_run_spec(loader.load_run_text(text, fmt::format("{} (tessera.workload)", result.display_name)));
}

bool is_pattern_kind(const nlohmann::json& workload) {
  const auto kind = workload.find("kind");
  return kind != workload.end() && kind->is_string() && workloads::patterns::find_pattern_kind(kind->get<std::string>()) != nullptr;
}

}  // namespace

CaseRun case_run(const MeasuredCase& result, const std::string& system) {
  const nlohmann::json& given = result.tessera_workload;
  if (is_pattern_kind(given) && !given.contains("ranks")) {
    nlohmann::json with_ranks = given;
    with_ranks["ranks"] = result.tessera_ranks;
    try {
      return {read_case(result, system, with_ranks), with_ranks};
    } catch (const sim::config::ConfigError& e) {
      // A kind for one GPU (gemm) has no ranks key: then the map runs as given.
      if (e.key_path() != "workload.ranks") throw;
    }
  }
  return {read_case(result, system, given), given};
}

}  // namespace tessera::app::measured
