#include "harness/device_info.h"

#include "harness/hip_check.h"

namespace tk {

namespace {

// An attribute the runtime may not offer on every platform: null when unreadable.
nlohmann::json attribute_or_null(hipDeviceAttribute_t attribute, int device) {
  int value = 0;
  if (hipDeviceGetAttribute(&value, attribute, device) != hipSuccess) {
    (void)hipGetLastError();
    return nullptr;
  }
  return value;
}

}  // namespace

nlohmann::json describe_device(int device) {
  hipDeviceProp_t properties{};
  HIP_CHECK(hipGetDeviceProperties(&properties, device));
  nlohmann::json out{{"index", device},
                     {"name", properties.name},
                     {"multiprocessors", properties.multiProcessorCount},
                     {"memory_bytes", properties.totalGlobalMem},
                     {"l2_bytes", properties.l2CacheSize}};
#if defined(TK_PLATFORM_AMD)
  out["arch"] = properties.gcnArchName;
#else
  out["arch"] = "sm_" + std::to_string(properties.major) + std::to_string(properties.minor);
#endif
  const nlohmann::json clock_khz = attribute_or_null(hipDeviceAttributeClockRate, device);
  const nlohmann::json memory_clock_khz = attribute_or_null(hipDeviceAttributeMemoryClockRate, device);
  out["clock_max_mhz"] = clock_khz.is_null() ? nlohmann::json() : nlohmann::json(clock_khz.get<int>() / 1000.0);
  out["memory_clock_max_mhz"] =
      memory_clock_khz.is_null() ? nlohmann::json() : nlohmann::json(memory_clock_khz.get<int>() / 1000.0);
  return out;
}

nlohmann::json describe_runtime() {
  int driver = 0, runtime = 0;
  HIP_CHECK(hipDriverGetVersion(&driver));
  HIP_CHECK(hipRuntimeGetVersion(&runtime));
#if defined(TK_PLATFORM_AMD)
  const char* platform = "amd";
#else
  const char* platform = "nvidia";
#endif
  return {{"platform", platform}, {"driver_version", driver}, {"runtime_version", runtime}};
}

}  // namespace tk
