#include "harness/device_data.h"

#include <cstring>

#include "harness/half.h"

namespace tk {

namespace {

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__host__ __device__ inline float uniform_at(std::uint64_t seed, std::uint64_t index, float low, float high) {
  const std::uint64_t bits = splitmix64(seed * 0x100000001B3ull ^ splitmix64(index));
  const float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // 24 bits: exact in float
  return low + (high - low) * unit;
}

__global__ void fill_float_kernel(float* data, std::size_t count, std::uint64_t seed, float low, float high) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] = uniform_at(seed, i, low, high);
  }
}

__global__ void fill_half_kernel(__half* data, std::size_t count, std::uint64_t seed, float low, float high) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] = __float2half(uniform_at(seed, i, low, high));
  }
}

constexpr int kFillBlocks = 1024;
constexpr int kFillThreads = 256;

}  // namespace

void fill_uniform(Context& context, int rank, float* data, std::size_t count, std::uint64_t seed, float low,
                  float high) {
  context.use(rank);
  hipLaunchKernelGGL(fill_float_kernel, dim3(kFillBlocks), dim3(kFillThreads), 0, context.stream(rank), data, count,
                     seed, low, high);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipStreamSynchronize(context.stream(rank)));
}

void fill_uniform(Context& context, int rank, __half* data, std::size_t count, std::uint64_t seed, float low,
                  float high) {
  context.use(rank);
  hipLaunchKernelGGL(fill_half_kernel, dim3(kFillBlocks), dim3(kFillThreads), 0, context.stream(rank), data, count,
                     seed, low, high);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipStreamSynchronize(context.stream(rank)));
}

void poison(Context& context, int rank, void* data, std::size_t bytes) {
  context.use(rank);
  HIP_CHECK(hipMemsetAsync(data, 0xFF, bytes, context.stream(rank)));
}

std::vector<float> copy_to_host(Context& context, int rank, const float* data, std::size_t count) {
  context.use(rank);
  std::vector<float> out(count);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out.data(), data, count * sizeof(float), hipMemcpyDeviceToHost));
  return out;
}

std::vector<float> copy_to_host(Context& context, int rank, const __half* data, std::size_t count) {
  context.use(rank);
  std::vector<std::uint16_t> bits(count);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(bits.data(), data, count * sizeof(std::uint16_t), hipMemcpyDeviceToHost));
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = half_bits_to_float(bits[i]);
  return out;
}

std::vector<int> copy_to_host(Context& context, int rank, const int* data, std::size_t count) {
  context.use(rank);
  std::vector<int> out(count);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out.data(), data, count * sizeof(int), hipMemcpyDeviceToHost));
  return out;
}

float uniform_value(std::uint64_t seed, std::uint64_t index, float low, float high) {
  return uniform_at(seed, index, low, high);
}

float half_rounded(float value) {
  // Round to nearest even at fp16 precision through the runtime's own conversion, on the host.
  const __half rounded = __float2half(value);
  std::uint16_t bits;
  std::memcpy(&bits, &rounded, sizeof bits);
  return half_bits_to_float(bits);
}

}  // namespace tk
