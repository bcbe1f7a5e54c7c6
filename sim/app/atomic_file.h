#pragma once
// Writes a file so that readers see either the old content or the whole new one, never a
// half-written file: write a temporary beside it, flush, then rename over the target.
#include <filesystem>
#include <string_view>

namespace tessera::app {

// Throws std::runtime_error naming the path when anything fails; the temporary is removed.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace tessera::app
