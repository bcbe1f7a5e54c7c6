#pragma once
// Small helpers to write described configs as YAML text that reads back to the same values.
#include <string>
#include <string_view>
#include <vector>

namespace tessera::sim::config {

// A scalar as YAML: plain when YAML reads it back as the same text, else quoted.
std::string yaml_scalar(std::string_view text);

// A flow list "[a, b]" of scalars, quoted where the flow context needs it.
std::string yaml_flow_list(const std::vector<std::string>& items);

// Appends "<indent>key: value  # doc\n" (value may be empty, for a map header).
void append_yaml_line(std::string& out, int indent, std::string_view key, std::string_view value, std::string_view doc);

}  // namespace tessera::sim::config
