#include "sim/app/measured/measured_set.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/app/measured/measured_data_error.h"

namespace tessera::app::measured {
namespace {

// The short word a skip reason is counted under in summaries.
std::string reason_class(const SkippedFile& s) {
  if (s.reason.starts_with("status failed")) return "failed";
  if (s.reason.starts_with("shared_gpu")) return "shared_gpu";
  if (s.reason.starts_with("ran on")) return "more GPUs than the system";
  return "not a result";
}

}  // namespace

std::vector<const MeasuredCase*> MeasuredSet::microbenchmarks() const {
  std::vector<const MeasuredCase*> out;
  for (const MeasuredCase& c : usable) {
    if (c.is_microbenchmark()) out.push_back(&c);
  }
  return out;
}

void MeasuredSet::append(MeasuredSet&& more) {
  for (MeasuredCase& c : more.usable) usable.push_back(std::move(c));
  for (SkippedFile& f : more.skipped) skipped.push_back(std::move(f));
  for (LibraryKernelTime& t : more.library_kernel_times) library_kernel_times.push_back(std::move(t));
  for (KernelBoundaries& b : more.kernel_boundaries) kernel_boundaries.push_back(std::move(b));
}

std::vector<const MeasuredCase*> MeasuredSet::patterns() const {
  std::vector<const MeasuredCase*> out;
  for (const MeasuredCase& c : usable) {
    if (c.is_pattern()) out.push_back(&c);
  }
  return out;
}

MeasuredSet read_measured_folder(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw MeasuredDataError(folder.string(), "", "no such folder of kernel-suite results (--measured)");
  }
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".json") continue;
    // A link that loops or dangles is named, not thrown past as a library error.
    std::error_code entry_ec;
    const bool regular = it->is_regular_file(entry_ec);
    if (entry_ec) throw MeasuredDataError(it->path().string(), "", fmt::format("cannot be read: {}", entry_ec.message()));
    if (regular) files.push_back(it->path());
  }
  if (ec) throw MeasuredDataError(folder.string(), "", fmt::format("cannot list the folder: {}", ec.message()));
  std::sort(files.begin(), files.end());

  MeasuredSet set;
  set.folder = folder;
  for (const fs::path& file : files) {
    const std::string display = (folder / file.lexically_relative(folder)).lexically_normal().string();
    ParsedFile parsed = parse_measured_file(file, display);
    if (!parsed.kernel_times.empty()) {
      for (LibraryKernelTime& t : parsed.kernel_times) set.library_kernel_times.push_back(std::move(t));
    } else if (parsed.kernel_boundaries) {
      set.kernel_boundaries.push_back(std::move(*parsed.kernel_boundaries));
    } else if (!parsed.is_result) {
      set.skipped.push_back({display, parsed.not_a_result_reason});
    } else if (parsed.result.status != "passed") {
      set.skipped.push_back({display, "status failed"});
    } else if (parsed.result.shared_gpu) {
      set.skipped.push_back({display, "shared_gpu: the ranks shared one GPU (a functional check, not a timing)"});
    } else {
      set.usable.push_back(std::move(parsed.result));
    }
  }
  return set;
}

std::string describe_skipped(const std::vector<SkippedFile>& skipped) {
  if (skipped.empty()) return "none skipped";
  std::map<std::string, std::size_t> counts;
  for (const SkippedFile& s : skipped) ++counts[reason_class(s)];
  std::string parts;
  for (const auto& [name, n] : counts) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, name);
  return fmt::format("{} skipped: {}", skipped.size(), parts);
}

}  // namespace tessera::app::measured
