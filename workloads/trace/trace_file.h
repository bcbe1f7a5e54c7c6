#pragma once
// Trace files on disk: loading either form, saving with the form its extension names.
#include <filesystem>

#include "workloads/trace/trace.h"
#include "workloads/trace/trace_error.h"

namespace tessera::workloads::trace {

enum class TraceForm : std::uint8_t {
  kByExtension,  // ".jsonl": text, ".tsrt": binary; any other extension is an error
  kText,         // JSON Lines (trace_text.h)
  kBinary,       // trace_binary.h
};

// The form an output path names: kText for ".jsonl", kBinary for ".tsrt"; otherwise throws
// TraceError naming the path.
TraceForm form_of_path(const std::filesystem::path& path);

// kBinary when the file starts with the binary magic bytes, else kText (by content, not by
// extension). Throws TraceError when the file cannot be opened.
TraceForm form_of_file(const std::filesystem::path& path);

// Reads and validates a trace in either form, told apart by content (the binary magic bytes),
// not by the extension. Throws TraceError (also when the file cannot be opened).
Trace load_trace(const std::filesystem::path& path);

// Writes atomically: a temporary file in the same folder, then a rename over `path`, so that
// a reader never sees half a trace. An unknown extension (kByExtension) throws TraceError;
// an I/O failure throws std::runtime_error naming the path.
void save_trace(const Trace& trace, const std::filesystem::path& path, TraceForm form = TraceForm::kByExtension);

}  // namespace tessera::workloads::trace
