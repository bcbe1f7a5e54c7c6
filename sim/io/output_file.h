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

// A command's output folder written as one (run --out, validate --out, compare --out): the files
// go into a hidden folder inside `dir`, then publish() removes the files of `dir` that
// `is_output` names (an earlier run's outputs) and moves the new ones in, with SIGINT and SIGTERM
// held meanwhile, so that `dir` holds the old outputs or the new ones, never a mix. Other files in
// `dir` are left alone. Destroyed unpublished (an exception on the way), it removes the hidden
// folder and leaves `dir` as it was.
class StagedFolder {
 public:
  explicit StagedFolder(std::filesystem::path dir);
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  // Writes one file of the new outputs (write_file_atomically's checks).
  void write(const std::string& name, std::string_view content) const;
  void publish(const std::function<bool(const std::string& file_name)>& is_output);

 private:
  std::filesystem::path dir_;
  std::filesystem::path staging_;
  bool published_ = false;
};

}  // namespace tessera::sim::io
