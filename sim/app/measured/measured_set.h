#pragma once
// Every result file under a folder of kernel-suite results, read and sorted into what can be
// used and what is skipped (with why), so that calibrate and validate can say both.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/app/measured/measured_case.h"

namespace tessera::app::measured {

struct SkippedFile {
  std::string display_name;
  std::string reason;  // "status failed", "shared_gpu: ranks shared one GPU", "schema ... is not a kernel-suite result"
};

struct MeasuredSet {
  std::filesystem::path folder;
  std::vector<MeasuredCase> usable;  // passed, not shared_gpu; both kinds, in file-name order
  std::vector<SkippedFile> skipped;
  // The cases of every collective library's kernel-time file (library_kernel_times.h), in file order.
  std::vector<LibraryKernelTime> library_kernel_times;
  // Every kernel-boundaries file (kernel_boundaries.h), in file order.
  std::vector<KernelBoundaries> kernel_boundaries;

  // Adds another folder's files after this one's (calibrate's repeated --measured).
  void append(MeasuredSet&& more);

  std::vector<const MeasuredCase*> microbenchmarks() const;
  std::vector<const MeasuredCase*> patterns() const;
};

// Reads every *.json below `folder`, recursively, in path order (the order of every table and
// fit, so that the output does not depend on the file system). Throws MeasuredDataError when the
// folder does not exist or a file is malformed, naming the file and the key.
MeasuredSet read_measured_folder(const std::filesystem::path& folder);

// "3 skipped: 2 failed, 1 shared_gpu" or "none skipped": for the commands' summaries.
std::string describe_skipped(const std::vector<SkippedFile>& skipped);

}  // namespace tessera::app::measured
