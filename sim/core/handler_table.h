#pragma once
// Interns handlers (function, object) into 32-bit ids so that queue entries stay small and
// the handler table, which holds one row per distinct (component, method), stays hot in cache.
// Open addressing with linear probing; the table only grows (handlers live as long as their
// components, which outlive the run).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/core/handler.h"

namespace tessera::sim {

class HandlerTable {
 public:
  HandlerTable() : slots_(kInitialSlots, kEmpty) {}

  std::uint32_t intern(Handler handler) {
    std::size_t i = hash(handler) & (slots_.size() - 1);
    for (;;) {
      const std::uint32_t id = slots_[i];
      if (id == kEmpty) break;
      const Handler& known = handlers_[id];
      if (known.fn == handler.fn && known.self == handler.self) return id;
      i = (i + 1) & (slots_.size() - 1);
    }
    if (handlers_.size() >= kEmpty) throw std::length_error("too many distinct event handlers");
    const auto id = static_cast<std::uint32_t>(handlers_.size());
    handlers_.push_back(handler);
    slots_[i] = id;
    if (handlers_.size() * 2 > slots_.size()) rehash(slots_.size() * 2);
    return id;
  }

  const Handler& operator[](std::uint32_t id) const { return handlers_[id]; }
  std::size_t size() const { return handlers_.size(); }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  static constexpr std::size_t kInitialSlots = 64;

  static std::size_t hash(const Handler& h) {
    const auto fn = reinterpret_cast<std::uintptr_t>(h.fn);
    const auto self = reinterpret_cast<std::uintptr_t>(h.self);
    std::uint64_t x = (fn * 0x9e3779b97f4a7c15ULL) ^ (self + 0x632be59bd9b4e019ULL + (fn << 6));
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    return static_cast<std::size_t>(x ^ (x >> 32));
  }

  void rehash(std::size_t new_size) {
    slots_.assign(new_size, kEmpty);
    for (std::uint32_t id = 0; id < handlers_.size(); ++id) {
      std::size_t i = hash(handlers_[id]) & (new_size - 1);
      while (slots_[i] != kEmpty) i = (i + 1) & (new_size - 1);
      slots_[i] = id;
    }
  }

  std::vector<Handler> handlers_;
  std::vector<std::uint32_t> slots_;
};

}  // namespace tessera::sim
