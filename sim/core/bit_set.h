#pragma once
// A growable bit per event slot: 262,144 pending events fit in 32 KiB, so the engine's
// per-event flag checks stay in the first-level cache.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::sim {

class BitSet {
 public:
  void grow(std::size_t bits) {
    if (bits > words_.size() * 64) words_.resize((bits + 63) / 64, 0);
  }
  bool test(std::size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1u; }
  void set(std::size_t i) { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
  void reset(std::size_t i) { words_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace tessera::sim
