#pragma once
// A fixed-size array for the caches' large state tables: zero-filled, by the kernel and only
// where it is touched, and advised as huge pages.
//
// Why lazily zeroed: a MALL of 256 MiB in 4 KiB chunks has ~0.5 M tag slots per GPU, and an
// 8-GPU system tens of MiB of them, most of which a run never uses (a set holds more slots
// than full chunks, for sparsely touched ones). Anonymous memory costs nothing until a page is
// touched, so a run pays for the slots it fills, not for the whole table (the tables used to be
// written in full at construction: a tenth of a second per run on the development machine).
// Why huge pages: every chunk access lands on a random set, so with 4 KiB pages nearly every
// access would be a TLB miss. Where the kernel does not grant them (THP off), nothing changes
// but speed.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace tessera::models::cache {

template <class T>
class HugePageTable {
  static_assert(std::is_trivially_copyable_v<T>, "the table is zero-filled and copied bytewise");

 public:
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
  static constexpr std::size_t kPageBytes = 4096;  // mmap rounds to the page; any multiple of it is fine

  HugePageTable() = default;
  explicit HugePageTable(std::size_t n) : size_(n) {
    if (n == 0) return;
    if (n > (~std::size_t{0} - 2 * kHugePageBytes) / sizeof(T)) throw std::bad_alloc();  // the size must not wrap
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) {
      // A small table stays on ordinary pages: a huge page would zero 2 MiB for its first touch.
      bytes_ = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
      void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      data_ = static_cast<T*>(p);
      return;
    }
    bytes_ = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    // Over-map by one huge page and trim, so that the table starts on a huge-page boundary.
    const std::size_t mapped = bytes_ + kHugePageBytes;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (aligned > start) ::munmap(p, aligned - start);
    const std::uintptr_t end = start + mapped;
    if (end > aligned + bytes_) ::munmap(reinterpret_cast<void*>(aligned + bytes_), end - aligned - bytes_);
    data_ = reinterpret_cast<T*>(aligned);
    ::madvise(data_, bytes_, MADV_HUGEPAGE);  // advice only: failure leaves ordinary pages
  }
  HugePageTable(const HugePageTable& o) : HugePageTable(o.size_) {
    if (size_ != 0) std::memcpy(static_cast<void*>(data_), o.data_, size_ * sizeof(T));
  }
  HugePageTable(HugePageTable&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
  HugePageTable& operator=(HugePageTable o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~HugePageTable() {
    if (data_ != nullptr) ::munmap(data_, bytes_);
  }

  std::size_t size() const { return size_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t bytes_ = 0;  // mapped
};

}  // namespace tessera::models::cache
