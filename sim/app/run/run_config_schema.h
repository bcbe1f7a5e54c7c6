#pragma once
// The schema of a run config, all of it: the run options, the system and each registered
// workload kind, as `tessera describe --schema` prints it (JSON or markdown) and as the
// generated tables of docs/config-reference.md hold it. A part is named by a dotted path:
// `run`, `system`, `system.gpu.memory.l2`, `workload`, `workload.gemm`; "" is the whole.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessera::app::run {

// The part at `path` as JSON: a schema's JSON (Schema::schema_json: every key's kind, unit,
// default, range or choices and meaning), or for "" {"run": ..., "system": ..., "workload":
// {KIND: ..., ...}} and for "workload" the map of kinds (each with its `summary`).
// nullopt when no part has that path.
std::optional<nlohmann::json> run_config_schema_json(std::string_view path);

// The same part as markdown tables (sim/config/schema_markdown.h), captioned with the key paths
// a config and --set use; several sections ("" or "workload") one after the other.
std::optional<std::string> run_config_schema_markdown(std::string_view path);

// The sections a whole reference is made of, in order: run, system, then workload.KIND for each
// registered kind. Every other path lies inside one of them (or is "workload", all kinds).
std::vector<std::string> run_config_schema_sections();

}  // namespace tessera::app::run
