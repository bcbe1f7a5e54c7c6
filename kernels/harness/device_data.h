// Inputs and outputs of cases: fresh random inputs generated on the GPU (a counter-based hash, so the same seed
// gives the same data on any GPU and any launch shape), and copies back to the host as float for checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/context.h"

namespace tk {

// Uniform values in [low, high) from (seed, index).
void fill_uniform(Context& context, int rank, float* data, std::size_t count, std::uint64_t seed, float low,
                  float high);
void fill_uniform(Context& context, int rank, __half* data, std::size_t count, std::uint64_t seed, float low,
                  float high);
// Poisons `bytes` of device memory with 0xFF (NaN in fp16 and fp32), on rank's stream 0, before a checked run.
void poison(Context& context, int rank, void* data, std::size_t bytes);

std::vector<float> copy_to_host(Context& context, int rank, const float* data, std::size_t count);
std::vector<float> copy_to_host(Context& context, int rank, const __half* data, std::size_t count);
std::vector<int> copy_to_host(Context& context, int rank, const int* data, std::size_t count);

// The same uniform value the device fill produced at `index`, computed on the host (for references that do not
// need the whole buffer copied back). For __half buffers the device rounds it to fp16: use half_rounded().
float uniform_value(std::uint64_t seed, std::uint64_t index, float low, float high);
float half_rounded(float value);

}  // namespace tk
