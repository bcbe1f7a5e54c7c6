#include "sim/config/yaml_writer.h"

#include <yaml-cpp/yaml.h>

namespace tessera::sim::config {

std::string yaml_scalar(std::string_view text) {
  YAML::Emitter out;
  out << std::string(text);
  return out.c_str();
}

std::string yaml_flow_list(const std::vector<std::string>& items) {
  YAML::Emitter out;
  out << YAML::Flow << YAML::BeginSeq;
  for (const std::string& item : items) out << item;
  out << YAML::EndSeq;
  return out.c_str();
}

void append_yaml_line(std::string& out, int indent, std::string_view key, std::string_view value, std::string_view doc) {
  out.append(static_cast<std::size_t>(indent), ' ');
  out += key;
  out += ':';
  if (!value.empty()) {
    out += ' ';
    out += value;
  }
  if (!doc.empty()) {
    out += "  # ";
    // A comment ends at the line's end: keep multi-line docs on one line.
    for (const char c : doc) out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  out += '\n';
}

}  // namespace tessera::sim::config
