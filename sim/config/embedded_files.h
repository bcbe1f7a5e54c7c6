#pragma once
// Config files compiled into the program, so that it finds its system descriptions from any
// working directory. The table is generated at build time by tessera_embed_files()
// (cmake/EmbedFiles.cmake); the reading code takes it as a span (FileResolver::add_embedded),
// never through a global, so tests can embed their own fixture set.
#include <span>
#include <string_view>

namespace tessera::sim::config {

struct EmbeddedFile {
  std::string_view path;  // relative to the embedded root, '/'-separated: "systems/mi300x-8.yaml"
  std::string_view text;
};

// Defined in the source that tessera_embed_files() generates (its default FUNCTION name);
// a program links one such target.
std::span<const EmbeddedFile> embedded_files();

}  // namespace tessera::sim::config
