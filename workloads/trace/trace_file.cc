#include "workloads/trace/trace_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "workloads/trace/trace_binary.h"
#include "workloads/trace/trace_text.h"

namespace tessera::workloads::trace {

TraceForm form_of_path(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".jsonl") return TraceForm::kText;
  if (ext == ".tsrt") return TraceForm::kBinary;
  const std::string got = ext.empty() ? "no extension" : fmt::format("unknown extension '{}'", ext);
  throw TraceError::in_file(path.string(), fmt::format("{}: a trace file ends in .jsonl (text) or .tsrt (binary)", got));
}

namespace {

std::ifstream open_trace(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw TraceError::in_file(path.string(), "is a folder, not a trace file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError::in_file(path.string(), fmt::format("cannot open: {}", std::strerror(errno)));
  return in;
}

bool starts_with_magic(std::istream& in) {
  char head[kBinaryMagic.size()] = {};
  in.read(head, static_cast<std::streamsize>(sizeof head));
  return in.gcount() == static_cast<std::streamsize>(sizeof head) && std::string_view(head, sizeof head) == kBinaryMagic;
}

}  // namespace

TraceForm form_of_file(const std::filesystem::path& path) {
  std::ifstream in = open_trace(path);
  return starts_with_magic(in) ? TraceForm::kBinary : TraceForm::kText;
}

Trace load_trace(const std::filesystem::path& path) {
  std::ifstream in = open_trace(path);
  const bool binary = starts_with_magic(in);
  in.clear();
  in.seekg(0);
  if (binary) return read_trace_binary(in, path.string());
  return read_trace_text(in, path.string());
}

void save_trace(const Trace& trace, const std::filesystem::path& path, TraceForm form) {
  namespace fs = std::filesystem;
  if (form == TraceForm::kByExtension) form = form_of_path(path);
  // The pid keeps concurrent writers off each other's temporaries.
  const fs::path tmp = path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)));
    if (form == TraceForm::kBinary) {
      write_trace_binary(out, trace);
    } else {
      write_trace_text(out, trace);
    }
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
    out.close();
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

}  // namespace tessera::workloads::trace
