#include "harness/context.h"

#include <cstdio>

namespace tk {

Context::Context(const Params& params, std::vector<int> devices, std::uint64_t seed)
    : params_(params), devices_(std::move(devices)), seed_(seed) {
  streams_.resize(devices_.size());
  for (int rank = 0; rank < ranks(); ++rank) {
    use(rank);
    for (int peer = 0; peer < ranks(); ++peer) {
      // Two ranks on one GPU (--devices 0,0) run the multi-GPU code paths as a functional check on a machine
      // of one GPU; their timings are not link measurements (the result says "shared_gpu": true).
      if (peer == rank || device(peer) == device(rank)) continue;
      int can_access = 0;
      HIP_CHECK(hipDeviceCanAccessPeer(&can_access, device(rank), device(peer)));
      if (!can_access) {
        throw std::runtime_error("GPU " + std::to_string(device(rank)) + " cannot access GPU " +
                                 std::to_string(device(peer)) + " as a peer");
      }
      const hipError_t status = hipDeviceEnablePeerAccess(device(peer), 0);
      if (status == hipErrorPeerAccessAlreadyEnabled) {
        (void)hipGetLastError();  // clear the sticky "already enabled" of an earlier context
      } else {
        HIP_CHECK(status);
      }
    }
    for (int index = 0; index < kStreamsPerRank; ++index) {
      hipStream_t created = nullptr;
      HIP_CHECK(hipStreamCreateWithFlags(&created, hipStreamNonBlocking));
      streams_[rank].push_back(created);
    }
  }
}

Context::~Context() {
  // Destructors must not throw: report and go on.
  for (const Allocation& allocation : allocations_) {
    if (hipSetDevice(device(allocation.rank)) != hipSuccess || hipFree(allocation.pointer) != hipSuccess) {
      std::fprintf(stderr, "warning: could not free device memory of rank %d\n", allocation.rank);
    }
  }
  for (int rank = 0; rank < ranks(); ++rank) {
    if (hipSetDevice(device(rank)) != hipSuccess) continue;
    for (hipStream_t created : streams_[rank]) (void)hipStreamDestroy(created);
  }
}

void Context::use(int rank) const { HIP_CHECK(hipSetDevice(device(rank))); }

hipStream_t Context::stream(int rank, int index) const { return streams_.at(rank).at(index); }

void Context::synchronize_all() const {
  for (int rank = 0; rank < ranks(); ++rank) {
    use(rank);
    HIP_CHECK(hipDeviceSynchronize());
  }
}

void* Context::allocate_bytes(int rank, std::size_t bytes) {
  use(rank);
  void* pointer = nullptr;
  HIP_CHECK(hipMalloc(&pointer, bytes == 0 ? 1 : bytes));
  allocations_.push_back({rank, pointer});
  HIP_CHECK(hipMemset(pointer, 0xFF, bytes));
  return pointer;
}

}  // namespace tk
