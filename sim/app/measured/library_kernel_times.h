#pragma once
// The GPU-side times of a collective library's kernels, as kernels/framework/nccl_kernel_times.py
// measures them (schema "tessera-nccl-kernel-times/1"): per op and size, the median over calls of
// the kernel's duration on the GPU (CUPTI, through PyTorch's profiler), each call started on idle
// GPUs, the shorter of the ranks' durations (the rank that started last waited for nobody).
// Unlike the suite's collective results (one host thread, back to back: the host's pace or the
// GPU's), these separate the GPU from the host; calibrate's collective_kernel fit reads them.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessera::app::measured {

inline constexpr const char* kLibraryKernelTimesSchema = "tessera-nccl-kernel-times/1";

struct LibraryKernelTime {
  std::string display_name;  // the file, as under the measured folder
  std::string device;        // "NVIDIA H200"
  std::string algorithm;     // "ring", "tree" when NCCL_ALGO forced one; else "auto"
  std::string protocol;      // "ll", "ll128", "simple" when NCCL_PROTO forced one; else "auto"
  std::string op;            // "all_gather", "reduce_scatter", "all_reduce"
  std::string dtype;         // "fp16"
  std::uint64_t size_bytes = 0;  // nccl-tests' size
  std::uint32_t ranks = 0;
  double kernel_ns = 0;      // the median over calls
};

// Every case of one such document. Throws MeasuredDataError naming the file and the key.
std::vector<LibraryKernelTime> parse_library_kernel_times(const nlohmann::json& document, const std::string& display_name);

}  // namespace tessera::app::measured
