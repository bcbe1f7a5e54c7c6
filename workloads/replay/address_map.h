#pragma once
// Where each symmetric buffer of a trace lives in every rank's memory: the same layout on every
// rank (as a symmetric heap), each buffer aligned to 2 MiB so that buffers never share a cache
// set pattern by accident of packing.
#include <cstdint>
#include <vector>

#include "workloads/trace/trace.h"

namespace tessera::workloads::replay {

class AddressMap {
 public:
  static constexpr std::uint64_t kAlignment = 2ULL << 20;

  explicit AddressMap(const trace::Trace& trace) {
    std::uint64_t next = 0;
    for (const trace::Buffer& b : trace.buffers) {
      base_.push_back(next);
      size_.push_back(b.bytes);
      next += (b.bytes + kAlignment - 1) / kAlignment * kAlignment;
    }
    total_ = next;
  }

  // The address of [offset, offset + bytes) of `buffer`; false when it does not fit.
  bool resolve(std::uint32_t buffer, std::int64_t offset, std::int64_t bytes, std::uint64_t& address) const {
    if (buffer >= base_.size() || offset < 0 || bytes < 0) return false;
    const auto off = static_cast<std::uint64_t>(offset);
    const auto len = static_cast<std::uint64_t>(bytes);
    if (off > size_[buffer] || len > size_[buffer] - off) return false;
    address = base_[buffer] + off;
    return true;
  }
  std::uint64_t bytes_per_rank() const { return total_; }

 private:
  std::vector<std::uint64_t> base_;
  std::vector<std::uint64_t> size_;
  std::uint64_t total_ = 0;
};

}  // namespace tessera::workloads::replay
