#pragma once
// Writing Tessera's outputs without harm (docs/robustness.md, "Outputs"):
// - a file is replaced only when it is a regular file (or absent): never a symlink, a FIFO, a
//   device or a folder, so that `--out /dev/null` run as root cannot replace the system's
//   /dev/null and a link cannot redirect a write elsewhere;
// - readers see the old content or the whole new one: a temporary beside the file, then a rename;
// - a folder or file named by a flag is checked before any work, so that an unwritable
//   --out fails at once rather than after a sweep's last point.
#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera::sim::io {

// An output path Tessera refuses (bad input: exit 2).
class OutputPathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What `path` is when it is neither absent nor a regular file ("a symbolic link", "a FIFO",
// "a character device", "a folder", ...), or "" when it may be replaced.
std::string unreplaceable_kind(const std::filesystem::path& path);

// The folder can be written: it, or the nearest folder above it that exists (when it must be
// created), is a folder that takes a new file. Creates nothing; throws OutputPathError naming
// `flag` ("--out") otherwise.
// With `is_output`, the files of an existing folder that it names (what the command will
// replace) must be regular files too.
void check_output_folder(const std::filesystem::path& dir, std::string_view flag,
                         const std::function<bool(const std::string& file_name)>& is_output = nullptr);
// The file may be written: its folder passes check_output_folder and the file itself is absent
// or a regular file.
void check_output_file(const std::filesystem::path& path, std::string_view flag);

// Writes `content` to `path` atomically (OutputPathError for a target that is not a regular
// file; std::runtime_error naming the path when the write fails; the temporary is removed).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);
// The same with the content streamed by `write` (large files: traces).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// Makes the files of `staging` (a folder inside `dir`, written completely) the outputs in `dir`:
// removes the files of `dir` that `is_previous_output` names (an earlier run's outputs), moves
// every staged file in, and removes `staging`, with SIGINT and SIGTERM held meanwhile, so that
// an interrupt leaves `dir` all old or all new, never a mix. Other files in `dir` are left alone.
void publish_staged_files(const std::filesystem::path& staging, const std::filesystem::path& dir,
                          const std::function<bool(const std::string& file_name)>& is_previous_output);

}  // namespace tessera::sim::io
