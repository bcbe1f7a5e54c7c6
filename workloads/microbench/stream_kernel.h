#pragma once
// A grid-stride streaming kernel: the body of every bandwidth microbenchmark.
//
// The work is a list of segments, each `segment_bytes` long, each either loaded from a buffer,
// stored to a buffer, or both (loaded, then the same bytes stored: a copy). It is cut into
// chunks of `chunk_bytes`; chunk k of a pass belongs to segment k mod S, so every workgroup
// spreads its accesses over all segments (all peers at once for all_store). Workgroup w of W
// takes chunks w, w + W, w + 2W, ... one access at a time: load, then store, then the next.
// `passes` repeats the whole list (a working set re-read for the L2 benchmark).
#include <cstdint>
#include <optional>
#include <vector>

#include "models/compute/kernel.h"
#include "models/compute/workgroup_context.h"
#include "models/machine/machine.h"

namespace tessera::workloads::microbench {

struct BufferRef {
  std::uint32_t owner = 0;   // the GPU whose memory holds it
  std::uint64_t address = 0;
};

struct StreamSegment {
  std::optional<BufferRef> load;
  std::optional<BufferRef> store;
};

struct StreamPlan {
  std::vector<StreamSegment> segments;
  std::uint64_t segment_bytes = 0;
  std::uint64_t chunk_bytes = 0;
  std::uint32_t passes = 1;

  std::uint64_t chunks_per_pass() const;
  std::uint64_t total_chunks() const { return chunks_per_pass() * passes; }
};

class StreamKernel : public models::compute::WorkgroupBody {
 public:
  StreamKernel(models::machine::Machine& machine, std::uint32_t gpu, StreamPlan plan);

  void start(models::compute::WorkgroupContext& wg) override;

 private:
  struct Chunk {
    const StreamSegment* segment;
    std::uint64_t offset;
    std::uint64_t bytes;
  };
  Chunk chunk(std::uint64_t index) const;
  void issue(std::uint32_t handle);
  void on_load_done(const sim::Payload& payload);
  void on_store_done(const sim::Payload& payload);
  void next(std::uint32_t handle);

  models::machine::Machine& machine_;
  std::uint32_t gpu_;
  StreamPlan plan_;
  std::vector<std::uint64_t> next_chunk_;  // per workgroup handle: the chunk it is working on
};

}  // namespace tessera::workloads::microbench
