#include "workloads/trace/trace_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "sim/io/output_file.h"
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
  // A FIFO or device would block the read or never end.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw TraceError::in_file(path.string(), "is not a regular file");
  }
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
  if (form == TraceForm::kByExtension) form = form_of_path(path);
  sim::io::write_file_atomically(path, [&](std::ostream& out) {
    if (form == TraceForm::kBinary) {
      write_trace_binary(out, trace);
    } else {
      write_trace_text(out, trace);
    }
  });
}

}  // namespace tessera::workloads::trace
