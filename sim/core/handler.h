#pragma once
// What an event carries: a typed callback and a small fixed payload.
//
// A handler is a plain function pointer plus the object it acts on, so scheduling never
// allocates (no std::function) and the callee is typed (no void* payload switch). The
// payload is two 64-bit words: enough for an index into a model's own pool, a byte count,
// or a tile id. Models with larger messages keep them in their own storage and pass an index.
#include <cstdint>

namespace tessera::sim {

struct Payload {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
};

struct Handler {
  void (*fn)(void* self, const Payload& payload) = nullptr;
  void* self = nullptr;

  void operator()(const Payload& payload) const { fn(self, payload); }
  explicit operator bool() const { return fn != nullptr; }
};

// Binds a member function `void T::method(const Payload&)` to an object, at compile time.
template <auto kMethod, class T>
Handler bind(T* object) {
  return Handler{[](void* self, const Payload& payload) { (static_cast<T*>(self)->*kMethod)(payload); },
                 object};
}

}  // namespace tessera::sim
