// Chunked streams: the grid-stride access pattern of Tessera's StreamKernel (workloads/microbench/stream_kernel.h)
// as real kernels, and the host reference of their read sums. micro/micro_cases.h documents the pattern.
#include <algorithm>
#include <stdexcept>

#include "harness/hip_check.h"
#include "micro/micro_cases.h"

namespace tk {

namespace {

struct ReadSources {
  const uint4* pointer[kMaxStreamSegments];
};

struct StoreTargets {
  uint4* pointer[kMaxStreamSegments];
  std::uint32_t salt[kMaxStreamSegments];
};

// Visits the chunks of this workgroup in Tessera's order: global chunk indices blockIdx.x, + gridDim.x, ... over
// `passes` passes of `chunks_per_pass` chunks; visit(segment, chunk index within the segment). The index is kept as
// (pass, index in pass) and advanced without divisions, so the loop costs a few integer operations per chunk. The
// chunk is the same for every thread of the workgroup.
template <int kSegments, class Visit>
__device__ inline void walk_chunks(std::uint64_t chunks_per_pass, std::uint32_t passes, Visit&& visit) {
  const std::uint64_t workgroups = gridDim.x;
  const std::uint64_t step_pass = workgroups / chunks_per_pass;
  const std::uint64_t step_in_pass = workgroups % chunks_per_pass;
  std::uint64_t pass = blockIdx.x / chunks_per_pass;
  std::uint64_t in_pass = blockIdx.x % chunks_per_pass;
  while (pass < passes) {
    visit(static_cast<int>(in_pass % kSegments), in_pass / kSegments);  // constant divisor: a multiply
    in_pass += step_in_pass;
    pass += step_pass;
    if (in_pass >= chunks_per_pass) {  // both terms are below chunks_per_pass: at most one carry
      in_pass -= chunks_per_pass;
      ++pass;
    }
  }
}

// Picks pointers[segment] with a compile-time-bounded select chain rather than a dynamic index into the kernel
// arguments (which may spill the argument array to local memory).
template <int kSegments, class T>
__device__ inline T select_segment(const T (&values)[kMaxStreamSegments], int segment) {
  T chosen = values[0];
#pragma unroll
  for (int s = 1; s < kSegments; ++s) {
    if (segment == s) chosen = values[s];
  }
  return chosen;
}

template <int kSegments>
__global__ void chunk_read_sums_kernel(ReadSources sources, std::uint64_t segment_vectors,
                                       std::uint64_t chunk_vectors, std::uint64_t chunks_per_pass,
                                       std::uint32_t passes, std::uint32_t* sums) {
  std::uint32_t sum = 0;  // wrapping: exact modulo 2^32 in any order, so the host reference matches bit for bit
  walk_chunks<kSegments>(chunks_per_pass, passes, [&](int segment, std::uint64_t chunk) {
    const uint4* source = select_segment<kSegments>(sources.pointer, segment);
    const std::uint64_t first = chunk * chunk_vectors;
    const std::uint64_t end = first + chunk_vectors < segment_vectors ? first + chunk_vectors : segment_vectors;
    // Unrolled so that each thread has several independent 16-byte loads in flight within a chunk.
#pragma unroll 4
    for (std::uint64_t i = first + threadIdx.x; i < end; i += blockDim.x) {
      const uint4 v = source[i];
      sum += v.x + v.y + v.z + v.w;
    }
  });
  // Tree reduction over the workgroup (blockDim.x is a power of two, at most 1024).
  __shared__ std::uint32_t partial[1024];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

template <int kSegments>
__global__ void chunk_store_pattern_kernel(StoreTargets targets, std::uint64_t segment_vectors,
                                           std::uint64_t chunk_vectors, std::uint64_t chunks_per_pass) {
  walk_chunks<kSegments>(chunks_per_pass, 1, [&](int segment, std::uint64_t chunk) {
    uint4* destination = select_segment<kSegments>(targets.pointer, segment);
    const std::uint32_t salt = select_segment<kSegments>(targets.salt, segment);
    const std::uint64_t first = chunk * chunk_vectors;
    const std::uint64_t end = first + chunk_vectors < segment_vectors ? first + chunk_vectors : segment_vectors;
#pragma unroll 4
    for (std::uint64_t i = first + threadIdx.x; i < end; i += blockDim.x) {
      const std::uint64_t word = 4 * i;
      destination[i] = make_uint4(store_pattern(salt, word), store_pattern(salt, word + 1),
                                  store_pattern(salt, word + 2), store_pattern(salt, word + 3));
    }
  });
}

void validate(const ChunkStream& stream, std::size_t pointers) {
  if (stream.segments < 1 || stream.segments > kMaxStreamSegments ||
      pointers != static_cast<std::size_t>(stream.segments)) {
    throw std::logic_error("chunk stream: " + std::to_string(stream.segments) + " segments, " +
                           std::to_string(pointers) + " buffers");
  }
  const bool power_of_two = (stream.threads & (stream.threads - 1)) == 0;
  if (stream.segment_bytes == 0 || stream.segment_bytes % 16 != 0 || stream.chunk_bytes == 0 ||
      stream.chunk_bytes % 16 != 0 || stream.passes == 0 || stream.workgroups < 1 || stream.threads < 32 ||
      stream.threads > 1024 || !power_of_two) {
    throw std::logic_error("chunk stream: invalid shape");
  }
}

template <int kSegments>
void launch_read(const ChunkStream& stream, const ReadSources& sources, std::uint32_t* sums, hipStream_t on) {
  hipLaunchKernelGGL(chunk_read_sums_kernel<kSegments>, dim3(stream.workgroups), dim3(stream.threads), 0, on,
                     sources, static_cast<std::uint64_t>(stream.segment_bytes / 16),
                     static_cast<std::uint64_t>(stream.chunk_bytes / 16), stream.chunks_per_pass(), stream.passes,
                     sums);
}

template <int kSegments>
void launch_store(const ChunkStream& stream, const StoreTargets& targets, hipStream_t on) {
  hipLaunchKernelGGL(chunk_store_pattern_kernel<kSegments>, dim3(stream.workgroups), dim3(stream.threads), 0, on,
                     targets, static_cast<std::uint64_t>(stream.segment_bytes / 16),
                     static_cast<std::uint64_t>(stream.chunk_bytes / 16), stream.chunks_per_pass());
}

}  // namespace

void launch_chunk_read_sums(const ChunkStream& stream, const std::vector<const void*>& sources, std::uint32_t* sums,
                            hipStream_t on) {
  validate(stream, sources.size());
  ReadSources packed{};
  for (int s = 0; s < stream.segments; ++s) packed.pointer[s] = static_cast<const uint4*>(sources[s]);
  switch (stream.segments) {
    case 1: launch_read<1>(stream, packed, sums, on); break;
    case 2: launch_read<2>(stream, packed, sums, on); break;
    case 3: launch_read<3>(stream, packed, sums, on); break;
    case 4: launch_read<4>(stream, packed, sums, on); break;
    case 5: launch_read<5>(stream, packed, sums, on); break;
    case 6: launch_read<6>(stream, packed, sums, on); break;
    default: launch_read<7>(stream, packed, sums, on); break;
  }
  HIP_CHECK(hipGetLastError());
}

void launch_chunk_store_pattern(const ChunkStream& stream, const std::vector<void*>& destinations,
                                const std::vector<std::uint32_t>& salts, hipStream_t on) {
  validate(stream, destinations.size());
  if (salts.size() != destinations.size()) throw std::logic_error("chunk stream: one salt per destination");
  StoreTargets packed{};
  for (int s = 0; s < stream.segments; ++s) {
    packed.pointer[s] = static_cast<uint4*>(destinations[s]);
    packed.salt[s] = salts[s];
  }
  switch (stream.segments) {
    case 1: launch_store<1>(stream, packed, on); break;
    case 2: launch_store<2>(stream, packed, on); break;
    case 3: launch_store<3>(stream, packed, on); break;
    case 4: launch_store<4>(stream, packed, on); break;
    case 5: launch_store<5>(stream, packed, on); break;
    case 6: launch_store<6>(stream, packed, on); break;
    default: launch_store<7>(stream, packed, on); break;
  }
  HIP_CHECK(hipGetLastError());
}

std::vector<std::uint32_t> expected_read_sums(const ChunkStream& stream, const std::vector<std::uint64_t>& source_seeds,
                                              const std::vector<int>& workgroups) {
  validate(stream, source_seeds.size());
  const std::uint64_t segments = static_cast<std::uint64_t>(stream.segments);
  const std::uint64_t chunks_per_segment = stream.chunks_per_segment();
  const std::uint64_t chunks_per_pass = stream.chunks_per_pass();
  const std::uint64_t total_chunks = chunks_per_pass * stream.passes;
  const std::uint64_t segment_words = stream.segment_bytes / 4;
  const std::uint64_t chunk_words = stream.chunk_bytes / 4;
  // Chunk sums computed on first use: the words are regenerated from the seed, not read back from the device.
  std::vector<std::vector<std::uint32_t>> chunk_sum(segments, std::vector<std::uint32_t>(chunks_per_segment, 0));
  std::vector<std::vector<bool>> known(segments, std::vector<bool>(chunks_per_segment, false));
  auto sum_of_chunk = [&](std::uint64_t segment, std::uint64_t chunk) {
    if (!known[segment][chunk]) {
      std::uint32_t sum = 0;
      const std::uint64_t end = std::min(segment_words, (chunk + 1) * chunk_words);
      for (std::uint64_t word = chunk * chunk_words; word < end; ++word) sum += uniform_word(source_seeds[segment], word);
      chunk_sum[segment][chunk] = sum;
      known[segment][chunk] = true;
    }
    return chunk_sum[segment][chunk];
  };
  std::vector<std::uint32_t> expected;
  expected.reserve(workgroups.size());
  for (int workgroup : workgroups) {
    std::uint32_t sum = 0;
    for (std::uint64_t g = static_cast<std::uint64_t>(workgroup); g < total_chunks;
         g += static_cast<std::uint64_t>(stream.workgroups)) {
      const std::uint64_t in_pass = g % chunks_per_pass;
      sum += sum_of_chunk(in_pass % segments, in_pass / segments);
    }
    expected.push_back(sum);
  }
  return expected;
}

std::vector<int> sampled_workgroups(const ChunkStream& stream, std::uint64_t word_budget) {
  const int workgroups = stream.workgroups;
  const std::uint64_t all_words = static_cast<std::uint64_t>(stream.segments) * (stream.segment_bytes / 4);
  std::vector<int> chosen;
  if (all_words <= word_budget) {  // every chunk sum fits the budget, so every workgroup can be checked
    for (int w = 0; w < workgroups; ++w) chosen.push_back(w);
    return chosen;
  }
  // Words one workgroup's reference regenerates (its chunks over all passes, at most every chunk once).
  const std::uint64_t per_workgroup = std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(all_words, stream.passes * all_words / static_cast<std::uint64_t>(workgroups)));
  const std::uint64_t fit = std::max<std::uint64_t>(2, word_budget / per_workgroup);
  const int count = static_cast<int>(std::min<std::uint64_t>(fit, static_cast<std::uint64_t>(workgroups)));
  if (count <= 1) return {0};
  for (int i = 0; i < count; ++i) {
    const int w = static_cast<int>(static_cast<std::int64_t>(workgroups - 1) * i / (count - 1));
    if (chosen.empty() || chosen.back() != w) chosen.push_back(w);
  }
  return chosen;
}

}  // namespace tk
