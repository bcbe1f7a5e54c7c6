#pragma once
// An allocator for the caches' large tag and state arrays: allocations of 2 MiB or more are
// 2 MiB-aligned and advised to the kernel as huge-page candidates (madvise MADV_HUGEPAGE).
//
// Why: a MALL of 256 MiB in 4 KiB chunks has ~0.5 M tag slots per GPU and 8 GPUs of them are
// tens of MiB of state; every chunk access lands on a random set, so with 4 KiB pages nearly
// every access is a TLB miss. Huge pages make the whole table reachable from the TLB. Where the
// kernel does not grant them (THP off), nothing changes but speed.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace tessera::models::cache {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure leaves ordinary pages
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePageBytes) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

}  // namespace tessera::models::cache
