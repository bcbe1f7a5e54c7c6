#include "sim/io/output_file.h"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace tessera::sim::io {
namespace fs = std::filesystem;

std::string unreplaceable_kind(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);  // the link itself, not its target
  if (ec || !fs::exists(status)) return "";
  switch (status.type()) {
    case fs::file_type::regular: return "";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::directory: return "a folder";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

namespace {

void refuse_unless_replaceable(const fs::path& path, std::string_view flag) {
  const std::string kind = unreplaceable_kind(path);
  if (kind.empty()) return;
  throw OutputPathError(fmt::format("{}{}{} is {}: Tessera writes and replaces regular files only",
                                    flag, flag.empty() ? "" : ": ", path.string(), kind));
}

fs::path temporary_beside(const fs::path& path) {
  // The pid keeps concurrent writers (parallel sweeps) off each other's temporaries.
  return path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
}

}  // namespace

void check_output_folder(const fs::path& dir, std::string_view flag,
                         const std::function<bool(const std::string& file_name)>& is_output) {
  if (dir.empty()) throw OutputPathError(fmt::format("{}: expected a folder, got an empty name", flag));
  // Nothing is created here (a command that then fails on its config leaves no folder behind):
  // the folder, or the nearest folder above it that exists, must take a new file.
  fs::path existing = dir;
  std::error_code ec;
  while (!fs::exists(existing, ec)) {
    const fs::path parent = existing.has_parent_path() ? existing.parent_path() : fs::path(".");
    if (parent == existing) break;
    existing = parent;
  }
  if (!fs::is_directory(existing, ec)) {
    throw OutputPathError(fmt::format("{}: {} exists and is not a folder", flag, existing.string()));
  }
  // The kernel's folders of devices and processes take no outputs, even from root.
  const fs::path real = fs::weakly_canonical(existing, ec);
  for (const char* system_folder : {"/dev", "/proc", "/sys"}) {
    const fs::path top(system_folder);
    if (real == top || (real.string().starts_with(top.string() + "/"))) {
      throw OutputPathError(fmt::format("{}: {} is a system folder (devices, processes): Tessera writes no outputs there",
                                        flag, top.string()));
    }
  }
  // Creating a file is what the command will do: try it (permissions, a read-only file system).
  const fs::path probe = existing / fmt::format(".tessera-probe-{}", ::getpid());
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out) throw OutputPathError(fmt::format("{}: cannot write into {}", flag, existing.string()));
  }
  fs::remove(probe, ec);
  if (!is_output || existing != dir) return;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (is_output(e.path().filename().string())) refuse_unless_replaceable(e.path(), flag);
  }
}

void check_output_file(const fs::path& path, std::string_view flag) {
  if (path.empty()) throw OutputPathError(fmt::format("{}: expected a file name, got an empty one", flag));
  refuse_unless_replaceable(path, flag);
  check_output_folder(path.has_parent_path() ? path.parent_path() : fs::path("."), flag);
}

void write_file_atomically(const fs::path& path, const std::function<void(std::ostream&)>& write) {
  refuse_unless_replaceable(path, "");
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message()));
  const fs::path tmp = temporary_beside(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    try {
      if (out) write(out);
    } catch (...) {
      out.close();
      fs::remove(tmp, ec);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
    }
  }
  // Checked again just before the rename: the target may have changed while the content was written.
  try {
    refuse_unless_replaceable(path, "");
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), ec.message()));
  }
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  write_file_atomically(path, [content](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

StagedFolder::StagedFolder(fs::path dir) : dir_(std::move(dir)), staging_(dir_ / fmt::format(".tessera-out-{}", ::getpid())) {
  std::error_code ec;
  fs::remove_all(staging_, ec);
  fs::create_directories(staging_, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", staging_.string(), ec.message()));
}

StagedFolder::~StagedFolder() {
  if (published_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
}

void StagedFolder::write(const std::string& name, std::string_view content) const {
  write_file_atomically(staging_ / name, content);
}

void StagedFolder::publish(const std::function<bool(const std::string& file_name)>& is_output) {
  std::error_code ec;
  std::vector<fs::path> staged;
  for (const fs::directory_entry& e : fs::directory_iterator(staging_, ec)) staged.push_back(e.path());
  if (ec) throw std::runtime_error(fmt::format("cannot list {}: {}", staging_.string(), ec.message()));
  for (const fs::path& f : staged) refuse_unless_replaceable(dir_ / f.filename(), "");
  // Held, not lost: a Ctrl-C here takes effect once the folder is consistent again.
  sigset_t hold;
  sigset_t previous_mask;
  sigemptyset(&hold);
  sigaddset(&hold, SIGINT);
  sigaddset(&hold, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &hold, &previous_mask);
  std::string failure;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && is_output(name)) fs::remove(e.path(), ec);
  }
  for (const fs::path& f : staged) {
    fs::rename(f, dir_ / f.filename(), ec);
    if (ec && failure.empty()) failure = fmt::format("cannot move {} into {}: {}", f.string(), dir_.string(), ec.message());
  }
  fs::remove_all(staging_, ec);
  published_ = true;
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  if (!failure.empty()) throw std::runtime_error(failure);
}

}  // namespace tessera::sim::io
