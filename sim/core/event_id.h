#pragma once
// A handle to a scheduled event that is safe to keep after the event has run or its pool
// slot has been reused: the generation must still match for cancel() to act.
#include <cstdint>

namespace tessera::sim {

struct EventId {
  std::uint32_t slot = ~std::uint32_t{0};
  std::uint32_t generation = 0;

  bool valid() const { return slot != ~std::uint32_t{0}; }
  friend bool operator==(const EventId&, const EventId&) = default;
};

}  // namespace tessera::sim
