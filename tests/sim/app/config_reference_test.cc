// docs/config-reference.md holds the key tables generated from the schemas, each between
//   <!-- BEGIN GENERATED: tessera describe --schema --markdown PART -->
//   <!-- END GENERATED -->
// as scripts/update-config-reference.sh writes them: a blank line, the command's output, a blank
// line. These tests fail when a schema changed and the document was not regenerated, and when a
// section of the schema (the run options, the system, a workload kind) has no generated tables.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "sim/app/run/run_config_schema.h"

namespace tessera::app::run {
namespace {

constexpr std::string_view kBegin = "<!-- BEGIN GENERATED: tessera describe --schema --markdown ";
constexpr std::string_view kBeginEnd = " -->\n";
constexpr std::string_view kEnd = "<!-- END GENERATED -->";
constexpr std::string_view kFix = "run scripts/update-config-reference.sh BUILD_DIR (after building tessera)";

std::string read_reference() {
  std::ifstream in(TESSERA_CONFIG_REFERENCE);
  REQUIRE_MESSAGE(in.good(), "cannot read " << TESSERA_CONFIG_REFERENCE);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// PART -> the text between its markers.
std::map<std::string, std::string> generated_sections(const std::string& doc) {
  std::map<std::string, std::string> sections;
  for (std::size_t at = doc.find(kBegin); at != std::string::npos; at = doc.find(kBegin, at)) {
    const std::size_t part_at = at + kBegin.size();
    const std::size_t part_end = doc.find(kBeginEnd, part_at);
    REQUIRE_MESSAGE(part_end != std::string::npos, "docs/config-reference.md: a BEGIN GENERATED marker without ' -->'");
    const std::string part = doc.substr(part_at, part_end - part_at);
    const std::size_t body = part_end + kBeginEnd.size();
    const std::size_t end = doc.find(kEnd, body);
    REQUIRE_MESSAGE(end != std::string::npos, "docs/config-reference.md: section '" << part << "' has no END marker");
    CHECK_MESSAGE(sections.count(part) == 0, "docs/config-reference.md: section '" << part << "' twice");
    sections[part] = doc.substr(body, end - body);
    at = end;
  }
  return sections;
}

TEST_CASE("config reference: every generated section matches the schemas") {
  const std::map<std::string, std::string> sections = generated_sections(read_reference());
  CHECK(!sections.empty());
  for (const auto& section : sections) {
    // Named references, not a structured binding: clang 14 refuses a binding in CHECK_MESSAGE's lambda.
    const std::string& part = section.first;
    const std::string& text = section.second;
    const std::optional<std::string> markdown = run_config_schema_markdown(part);
    CHECK_MESSAGE(markdown.has_value(),
                  "docs/config-reference.md: section '" << part << "' names no part of the schema");
    if (!markdown) continue;
    CHECK_MESSAGE(text == "\n" + *markdown + "\n",
                  "docs/config-reference.md: the generated section '" << part << "' differs from the schema; " << kFix);
  }
}

TEST_CASE("config reference: every section of the schema has generated tables") {
  const std::map<std::string, std::string> sections = generated_sections(read_reference());
  for (const std::string& section : run_config_schema_sections()) {
    CHECK_MESSAGE(sections.count(section) == 1,
                  "docs/config-reference.md: no generated section '"
                      << section << "'; add '" << kBegin << section << " -->' and '" << kEnd << "' lines where its "
                      << "tables belong, then " << kFix);
  }
}

}  // namespace
}  // namespace tessera::app::run
