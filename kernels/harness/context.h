// What a case runs against: its parameters, the GPUs of its ranks (one GPU per rank, all in this process, with peer
// access enabled between every pair), a few streams per rank, and device memory that the context owns and frees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/hip_check.h"
#include "harness/params.h"
#include "port/hip_port.h"

namespace tk {

class Context {
 public:
  static constexpr int kStreamsPerRank = 4;

  Context(const Params& params, std::vector<int> devices, std::uint64_t seed);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const Params& params() const { return params_; }
  int ranks() const { return static_cast<int>(devices_.size()); }
  int device(int rank) const { return devices_.at(rank); }
  std::uint64_t seed() const { return seed_; }

  // Makes rank's GPU current; every runtime call for a rank's memory or stream goes after this.
  void use(int rank) const;
  // Stream `index` of rank (0 is where the harness records its timing events: a case that uses more streams
  // joins them back into stream 0 before enqueue returns).
  hipStream_t stream(int rank, int index = 0) const;
  // Waits for every rank's GPU to finish: the rank barrier of the timing protocol.
  void synchronize_all() const;

  // Device memory on rank's GPU, owned by the context, filled with 0xFF bytes (a NaN for fp16/fp32) so that a
  // kernel that fails to write its output cannot pass a check.
  void* allocate_bytes(int rank, std::size_t bytes);
  template <class T>
  T* allocate(int rank, std::size_t count) {
    return static_cast<T*>(allocate_bytes(rank, count * sizeof(T)));
  }

 private:
  struct Allocation {
    int rank;
    void* pointer;
  };
  const Params& params_;
  std::vector<int> devices_;
  std::uint64_t seed_;
  std::vector<std::vector<hipStream_t>> streams_;
  std::vector<Allocation> allocations_;
};

}  // namespace tk
