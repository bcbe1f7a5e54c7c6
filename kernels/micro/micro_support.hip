// Helpers shared by the micro cases: workgroup counts, per-rank seeds, exact word checks, sampled check windows.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "harness/device_data.h"
#include "harness/hip_check.h"
#include "micro/micro_cases.h"

namespace tk {

int bandwidth_workgroups(std::int64_t requested, int device) {
  if (requested > 0) return static_cast<int>(requested);
  int compute_units = 0;
  HIP_CHECK(hipDeviceGetAttribute(&compute_units, hipDeviceAttributeMultiprocessorCount, device));
  return 4 * compute_units;
}

int current_device() {
  int device = 0;
  HIP_CHECK(hipGetDevice(&device));
  return device;
}

void validate_stream_params(const Params& params) {
  const std::int64_t bytes = params.integer("bytes");
  const std::int64_t chunk = params.integer("chunk");
  const std::int64_t workgroups = params.integer("workgroups");
  const std::int64_t threads = params.integer("threads");
  if (bytes <= 0 || bytes % 16 != 0) throw std::invalid_argument("bytes: must be a positive multiple of 16");
  if (chunk < 128 || chunk % 16 != 0) throw std::invalid_argument("chunk: must be a multiple of 16, at least 128");
  if (workgroups < 0 || workgroups > (1 << 24)) throw std::invalid_argument("workgroups: 0 (4 per CU/SM) to 16777216");
  if (threads < 32 || threads > 1024 || (threads & (threads - 1)) != 0) {
    throw std::invalid_argument("threads: a power of two from 32 to 1024");
  }
}

std::uint64_t rank_seed(std::uint64_t seed, int rank) {
  return seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(rank + 1);
}

std::uint32_t uniform_word(std::uint64_t seed, std::uint64_t index) {
  const float value = uniform_value(seed, index, -1.0f, 1.0f);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::vector<std::uint32_t> copy_words_to_host(Context& context, int rank, const std::uint32_t* data,
                                              std::size_t count) {
  context.use(rank);
  std::vector<std::uint32_t> out(count);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out.data(), data, count * sizeof(std::uint32_t), hipMemcpyDeviceToHost));
  return out;
}

CheckResult compare_exact(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& expected,
                          const std::string& what) {
  CheckResult result;
  result.tolerance = 0;
  result.values_checked = got.size();
  if (got.size() != expected.size()) {
    result.max_relative_error = 1;
    result.detail = what + ": " + std::to_string(got.size()) + " values, reference has " +
                    std::to_string(expected.size());
    return result;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expected[i]) {
      // Words are bit patterns or wrapping sums: any difference is a failure, reported as relative error 1.
      result.max_relative_error = 1;
      result.detail = what + ": value " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
                      std::to_string(expected[i]);
      return result;
    }
  }
  result.passed = true;
  result.detail = what + ": " + std::to_string(got.size()) + " values equal";
  return result;
}

std::vector<Window> sampled_windows(std::size_t count, std::size_t window, std::size_t budget) {
  if (count <= budget || window >= count) return {{0, count}};
  const std::size_t windows = std::max<std::size_t>(2, budget / window);
  std::vector<Window> out;
  out.reserve(windows);
  const std::size_t last_start = count - window;
  for (std::size_t i = 0; i < windows; ++i) {
    // Evenly spread starts from 0 to last_start (inclusive), so the very end of the buffer is always checked.
    const std::size_t start = static_cast<std::size_t>(static_cast<double>(last_start) * static_cast<double>(i) /
                                                       static_cast<double>(windows - 1));
    out.push_back({start, window});
  }
  return out;
}

std::string bytes_text(std::int64_t bytes) { return std::to_string(bytes) + " B"; }

}  // namespace tk
