#include "sim/config/schema_markdown.h"

#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include "sim/config/units.h"

namespace tessera::sim::config {
namespace {

using nlohmann::json;

// A table cell: a '|' would end the cell (even inside a code span, in GitHub's tables), a line
// break would end the row, and two '*' in plain text ("remote_* ... atomic_*") would turn the
// text between them into emphasis; inside a code span a '*' is literal and must stay unescaped.
std::string cell(std::string_view text) {
  std::string out;
  bool in_code = false;
  for (const char c : text) {
    if (c == '`') in_code = !in_code;
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else if (c == '*' && !in_code) {
      out += "\\*";
    } else {
      out += c;
    }
  }
  return out.empty() ? "—" : out;
}

// A value as a config would write it: unit strings as they are, reals in their shortest exact text.
std::string plain(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return format_real(value.get<double>());
  if (value.is_array()) {
    std::vector<std::string> items;
    for (const json& item : value) items.push_back(plain(item));
    return fmt::format("[{}]", fmt::join(items, ", "));
  }
  return value.dump();  // integers, booleans, null, maps (the items of a list of maps)
}

std::string code(std::string_view text) { return fmt::format("`{}`", text); }

std::string kind_text(const json& field) {
  std::string kind = field.value("kind", "");
  if (field.value("optional", false)) kind += " or `null`";
  return kind;
}

std::string default_text(const json& field) {
  if (field.value("required", false)) return "required";
  if (!field.contains("default")) return "";  // a map: its own table gives its defaults
  const json& value = field["default"];
  if (value.is_string() && value.get<std::string>().empty()) return code("\"\"");
  return code(plain(value));
}

std::string range_text(const json& field) {
  if (field.contains("choices")) {
    std::vector<std::string> names;
    for (const json& name : field["choices"]) names.push_back(code(name.get<std::string>()));
    return fmt::format("{}", fmt::join(names, ", "));
  }
  const bool has_min = field.contains("min");
  const bool has_max = field.contains("max");
  if (has_min && has_max) return fmt::format("{} – {}", plain(field["min"]), plain(field["max"]));
  if (has_min) return fmt::format("≥ {}", plain(field["min"]));
  if (has_max) return fmt::format("≤ {}", plain(field["max"]));
  return "";
}

std::string join_path(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// The path of a nested field's own table: a list of maps is captioned `key[]`, as its items' keys
// are written `key[3].name` in --set.
std::string nested_path(const std::string& path, const json& field) {
  const std::string key = join_path(path, field.value("key", ""));
  return field.value("kind", "") == "list of map" ? key + "[]" : key;
}

void append_table(const json& schema, const std::string& path, const std::string& title, std::string& out) {
  if (!out.empty()) out += "\n";
  const std::string doc = schema.value("doc", "");
  out += fmt::format("**{}**{}\n\n", title, doc.empty() ? "" : ": " + doc);
  out += "| key | kind | default | range or choices | meaning |\n";
  out += "|---|---|---|---|---|\n";
  const json& fields = schema.contains("fields") ? schema["fields"] : json::array();
  for (const json& field : fields) {
    std::string meaning = field.value("doc", "");
    if (field.contains("schema")) {
      meaning += fmt::format("{}see `{}`", meaning.empty() ? "" : "; ", nested_path(path, field));
    }
    out += fmt::format("| {} | {} | {} | {} | {} |\n", cell(code(field.value("key", ""))), cell(kind_text(field)),
                       cell(default_text(field)), cell(range_text(field)), cell(meaning));
  }
  for (const json& field : fields) {
    if (!field.contains("schema")) continue;
    // The nested table says what the field's doc says (its role here), not the shared schema's
    // own doc ("one cache level" for both the L2 and the MALL).
    json nested = field["schema"];
    nested["doc"] = field.value("doc", "");
    const std::string sub = nested_path(path, field);
    append_table(nested, sub, code(sub), out);
  }
}

}  // namespace

std::string schema_markdown(const json& schema, const std::string& path, const std::string& title) {
  std::string out;
  append_table(schema, path, title.empty() ? code(path) : title, out);
  return out;
}

}  // namespace tessera::sim::config
