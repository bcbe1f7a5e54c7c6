#pragma once
// Names and predicates of synchronisation flags: a flag is a 64-bit word in the memory of one
// GPU (its home), identified by (home gpu, flag id).
#include <cstdint>
#include <functional>
#include <string_view>

namespace tessera::models::sync {

struct FlagRef {
  std::uint32_t gpu = 0;  // home: the GPU whose memory holds the flag
  std::uint64_t id = 0;
  friend bool operator==(const FlagRef&, const FlagRef&) = default;
};

struct FlagRefHash {
  std::size_t operator()(const FlagRef& f) const noexcept {
    return std::hash<std::uint64_t>{}(f.id * 0x9E3779B97F4A7C15ULL ^ f.gpu);
  }
};

// What a spin-wait waits for: value <op> target.
enum class Compare : std::uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };

inline bool holds(Compare op, std::uint64_t value, std::uint64_t target) {
  switch (op) {
    case Compare::kEq: return value == target;
    case Compare::kNe: return value != target;
    case Compare::kGe: return value >= target;
    case Compare::kGt: return value > target;
    case Compare::kLe: return value <= target;
    case Compare::kLt: return value < target;
  }
  return false;
}

std::string_view compare_name(Compare op);  // ">=", "==", ...

// Who accesses a flag and what the route adds: `extra_ps` is the link round trip between the
// issuer and the flag's home (0 for a local flag); the caller knows the route.
struct FlagAccess {
  std::uint32_t issuer_gpu = 0;
  std::uint64_t extra_ps = 0;
};

}  // namespace tessera::models::sync
