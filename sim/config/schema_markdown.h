#pragma once
// A schema as markdown tables: what `tessera describe --schema --markdown` prints and what the
// generated sections of docs/config-reference.md hold, so that the reference cannot drift from
// the schemas the program reads configs with.
#include <string>

#include <nlohmann/json.hpp>

namespace tessera::sim::config {

// `schema` is the JSON of Schema::schema_json: {name, doc, fields: [...]}. One table per map
// (key | kind | default | range or choices | meaning), the map's own keys first; each nested
// map (and each list of maps) follows as its own table, depth first, captioned with its dotted
// key path under `path` (the map's own path in a config; empty at the top level). `title`
// captions the first table; empty: `path`. Deterministic: the fields' order, no locale.
std::string schema_markdown(const nlohmann::json& schema, const std::string& path, const std::string& title = {});

}  // namespace tessera::sim::config
