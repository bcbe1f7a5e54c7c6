#include "sim/app/run/run_config_schema.h"

#include <fmt/format.h>

#include "models/system/system_spec.h"
#include "sim/app/run/run_spec.h"
#include "sim/config/schema_markdown.h"
#include "workloads/workload_kinds.h"

namespace tessera::app::run {
namespace {

using nlohmann::json;

// One schema at the top of the reference, and where its keys sit in a run config.
struct Section {
  std::string name;         // what --schema selects it by
  std::string config_path;  // where its keys are written ("" at the top level)
  std::string title;        // the caption of its first table
  json schema;
};

constexpr std::string_view kWorkload = "workload";

std::vector<Section> sections() {
  std::vector<Section> out;
  out.push_back({"run", "", "run options (the top level of a run config, beside `system:` and `workload:`)",
                 run_options_schema().schema_json()});
  out.push_back({"system", "system", "`system`", models::system_schema().schema_json()});
  for (const workloads::WorkloadKind& kind : workloads::workload_kinds()) {
    json schema = kind.schema_json();
    schema["summary"] = kind.summary;
    out.push_back({fmt::format("{}.{}", kWorkload, kind.name), std::string(kWorkload),
                   fmt::format("`workload` with `kind: {}`", kind.name), std::move(schema)});
  }
  return out;
}

// A part inside a section: the nested map at a key path below the section's map.
struct Part {
  std::string config_path;
  std::string title;
  json schema;
};

// Walks `rest` ("gpu.memory.l2") down the nested maps of `section`; a list of maps may be named
// with or without its "[]" ("kernel_efficiency[]").
std::optional<Part> part_inside(const Section& section, std::string_view rest) {
  Part part{section.config_path, section.title, section.schema};
  while (!rest.empty()) {
    const std::size_t dot = rest.find('.');
    std::string_view key = rest.substr(0, dot);
    rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    const bool as_list = key.ends_with("[]");
    if (as_list) key.remove_suffix(2);
    if (key.empty()) return std::nullopt;
    if (!part.schema.contains("fields")) return std::nullopt;
    const json* found = nullptr;
    for (const json& field : part.schema["fields"]) {
      if (field.value("key", "") == key && field.contains("schema")) found = &field;
    }
    if (found == nullptr) return std::nullopt;
    const bool is_list = found->value("kind", "") == "list of map";
    if (as_list && !is_list) return std::nullopt;
    const std::string step = is_list ? fmt::format("{}[]", key) : std::string(key);
    part.config_path = part.config_path.empty() ? step : part.config_path + "." + step;
    part.title = fmt::format("`{}`", part.config_path);
    // Captioned by its role here (the field's doc), as in the whole section's tables.
    json nested = found->at("schema");
    nested["doc"] = found->value("doc", "");
    part.schema = std::move(nested);  // `found` points into the old schema: not used past here
  }
  return part;
}

std::optional<Part> find_part(const std::vector<Section>& all, std::string_view path) {
  if (path.ends_with('.') || path.find("..") != std::string_view::npos) return std::nullopt;
  for (const Section& section : all) {
    if (path == section.name) return part_inside(section, {});
    if (path.starts_with(section.name) && path.size() > section.name.size() + 1 && path[section.name.size()] == '.') {
      return part_inside(section, path.substr(section.name.size() + 1));
    }
  }
  return std::nullopt;
}

bool in_workload(const Section& section) { return section.name.starts_with(fmt::format("{}.", kWorkload)); }

}  // namespace

std::optional<json> run_config_schema_json(std::string_view path) {
  const std::vector<Section> all = sections();
  if (path.empty() || path == kWorkload) {
    json kinds = json::object();
    json whole = json::object();
    for (const Section& section : all) {
      if (in_workload(section)) {
        kinds[section.name.substr(kWorkload.size() + 1)] = section.schema;
      } else {
        whole[section.name] = section.schema;
      }
    }
    if (path == kWorkload) return kinds;
    whole[std::string(kWorkload)] = std::move(kinds);
    return whole;
  }
  if (auto part = find_part(all, path)) return std::move(part->schema);
  return std::nullopt;
}

std::optional<std::string> run_config_schema_markdown(std::string_view path) {
  const std::vector<Section> all = sections();
  if (path.empty() || path == kWorkload) {
    std::string out;
    for (const Section& section : all) {
      if (path == kWorkload && !in_workload(section)) continue;
      if (!out.empty()) out += "\n";
      out += sim::config::schema_markdown(section.schema, section.config_path, section.title);
    }
    return out;
  }
  if (auto part = find_part(all, path)) {
    return sim::config::schema_markdown(part->schema, part->config_path, part->title);
  }
  return std::nullopt;
}

std::vector<std::string> run_config_schema_sections() {
  std::vector<std::string> names;
  for (const Section& section : sections()) names.push_back(section.name);
  return names;
}

}  // namespace tessera::app::run
