// The microbenchmark cases (docs/kernels.md), one concept per file; micro/micro_cases.hip lists them. Each case
// mirrors the Tessera `microbench` op of the same name (docs/config-reference.md, "kind: microbench").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/case.h"

namespace tk {

CaseInfo hbm_stream_case();
CaseInfo l2_bandwidth_case();     // micro/l2_bandwidth.hip
CaseInfo launch_latency_case();   // micro/launch_latency.hip
CaseInfo remote_load_case();      // micro/peer_stream.hip
CaseInfo remote_store_case();     // micro/peer_stream.hip
CaseInfo all_load_case();         // micro/peer_stream.hip
CaseInfo all_store_case();        // micro/peer_stream.hip
CaseInfo atomic_add_case();       // micro/atomic_chain.hip
CaseInfo atomic_xchg_case();      // micro/atomic_chain.hip
CaseInfo flag_pingpong_case();    // micro/flag_pingpong.hip
CaseInfo p2p_copy_case();         // micro/p2p_copy.hip
CaseInfo sm_pipes_case();         // micro/sm_pipes.hip

void append_micro_cases(std::vector<CaseInfo>& cases);

// --- Chunked streams (micro/chunk_stream.hip): the access pattern of Tessera's StreamKernel, shared by
// l2_bandwidth, remote_load/store and all_load/store. The work is `segments` buffers of `segment_bytes` each, cut
// into chunks of `chunk_bytes`; chunk k of a pass belongs to segment k mod S at offset (k / S) * chunk_bytes (the
// last chunk of a segment may be short); `passes` repeats the list. Workgroup w of W takes the global chunk indices
// w, w + W, w + 2W, ... over all passes, exactly as Tessera's workgroups do. ---

inline constexpr int kMaxStreamSegments = 7;  // all_load / all_store on 8 ranks: 7 peers

struct ChunkStream {
  std::size_t segment_bytes = 0;  // a multiple of 16 (the kernels move 16-byte vectors)
  std::size_t chunk_bytes = 0;    // a multiple of 16
  int segments = 1;               // 1 to kMaxStreamSegments
  std::uint32_t passes = 1;
  int workgroups = 1;
  int threads = 256;              // a power of two, 32 to 1024 (the block reduction of the read sums needs it)

  std::uint64_t chunks_per_segment() const { return (segment_bytes + chunk_bytes - 1) / chunk_bytes; }
  std::uint64_t chunks_per_pass() const { return static_cast<std::uint64_t>(segments) * chunks_per_segment(); }
};

// Reads every chunk of the stream from `sources` (one device pointer per segment) and writes, per workgroup, the
// wrapping uint32 sum of all 32-bit words it loaded into sums[workgroup]: the loads cannot be optimised away and the
// sums can be checked exactly.
void launch_chunk_read_sums(const ChunkStream& stream, const std::vector<const void*>& sources, std::uint32_t* sums,
                            hipStream_t on);
// Stores every chunk of the stream into `destinations` (one per segment); word i of segment s gets
// store_pattern(salts[s], i). Nothing is loaded.
void launch_chunk_store_pattern(const ChunkStream& stream, const std::vector<void*>& destinations,
                                const std::vector<std::uint32_t>& salts, hipStream_t on);

// The word a store stream writes: distinct per word index (a bijection of the low 32 bits) and per salt.
__host__ __device__ inline std::uint32_t store_pattern(std::uint32_t salt, std::uint64_t word) {
  return static_cast<std::uint32_t>(word) * 2654435761u + salt;
}

// Host reference of launch_chunk_read_sums for the listed workgroups, when segment s was filled by fill_uniform
// (floats in [-1, 1)) with seed source_seeds[s]: sums of the float bit patterns, chunk sums computed once and reused.
std::vector<std::uint32_t> expected_read_sums(const ChunkStream& stream, const std::vector<std::uint64_t>& source_seeds,
                                              const std::vector<int>& workgroups);
// Workgroups whose read sums a check compares: all of them when the host reference of all costs at most
// `word_budget` generated words, otherwise an evenly spread subset (always the first and the last) that fits.
std::vector<int> sampled_workgroups(const ChunkStream& stream, std::uint64_t word_budget);

// --- Helpers shared by the micro cases (micro/micro_support.hip). ---

// Workgroups per GPU of a bandwidth op: `requested`, or 4 per CU/SM of `device` when it is 0 (enough resident
// waves per CU to cover memory latency). The Tessera workload names the resolved number.
int bandwidth_workgroups(std::int64_t requested, int device);
// The GPU the runtime currently targets: tessera_workload() runs before any Context exists, and the GPUs of one run
// are of one model, so it resolves "4 per CU" against this one.
int current_device();
// Checks the parameters every chunk-stream case declares (bytes, chunk, workgroups, threads); throws
// std::invalid_argument naming the key.
void validate_stream_params(const Params& params);
// The seed of rank's input buffer, distinct per rank so that reading the wrong peer fails the check.
std::uint64_t rank_seed(std::uint64_t seed, int rank);
// The bit pattern of the float that fill_uniform(seed, low -1, high 1) put at `index`.
std::uint32_t uniform_word(std::uint64_t seed, std::uint64_t index);
std::vector<std::uint32_t> copy_words_to_host(Context& context, int rank, const std::uint32_t* data,
                                              std::size_t count);
// Exact comparison of words (sums, stored patterns): tolerance 0; the first mismatch is named.
CheckResult compare_exact(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& expected,
                          const std::string& what);
// Parts of a buffer of `count` elements that a check copies back: the whole buffer when count <= budget, otherwise
// `budget / window` windows of `window` elements spread evenly from the start to the very end.
struct Window {
  std::size_t start;
  std::size_t count;
};
std::vector<Window> sampled_windows(std::size_t count, std::size_t window, std::size_t budget);
// "N B": a size as the Tessera config parser reads it.
std::string bytes_text(std::int64_t bytes);

}  // namespace tk
