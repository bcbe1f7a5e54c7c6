#pragma once
// What a kernel boundary costs on the GPU, as kernels/framework/kernel_boundaries.py measures it
// with the GPU's global timer (schema "tessera-kernel-boundaries/1"):
// - teardown: from a one-workgroup kernel's last instruction to its stream's next command (a
//   stream write of a flag), less the time the same flag takes when the kernel writes it itself
//   (the flag's visibility cancels): the mean over trials of each, then the difference;
// - dispatch: per count of workgroups that are resident at once, the median span of their start
//   times (the dispatcher's rate);
// - queued: the median gap from one kernel's end to the next's start when the launch was queued
//   ahead (recorded; Tessera does not pipeline a stream's next launch: docs/models.md).
// Unlike the suite's launch-latency case (one sum per empty kernel), these split the sum;
// calibrate's boundaries fit reads them.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessera::app::measured {

inline constexpr const char* kKernelBoundariesSchema = "tessera-kernel-boundaries/1";

struct DispatchSpan {
  std::uint32_t workgroups = 0;
  double span_ns = 0;  // median over repeats of (last start - first start); 0 when the timer did not tell them apart
};

struct KernelBoundaries {
  std::string display_name;  // the file, as under the measured folder
  std::string device;        // "NVIDIA H200"
  double teardown_ns = 0;    // mean stream delay - mean direct delay
  double queued_gap_ns = 0;  // median
  std::vector<DispatchSpan> dispatch;  // in file order
};

// The document's figures. Throws MeasuredDataError naming the file and the key.
KernelBoundaries parse_kernel_boundaries(const nlohmann::json& document, const std::string& display_name);

}  // namespace tessera::app::measured
