#pragma once
// The integer conversions the decode programs' expressions need: sizes as the expressions'
// signed 64-bit constants, and divisors checked to fit the 32 bits an expression's divisor has.
#include <cstdint>
#include <stdexcept>

namespace tessera::workloads::patterns::decode_ints {

inline std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

inline std::uint32_t u32(std::uint64_t v) {
  if (v == 0 || v > 0xFFFF'FFFFULL) throw std::invalid_argument("decode: a divisor does not fit 32 bits");
  return static_cast<std::uint32_t>(v);
}

}  // namespace tessera::workloads::patterns::decode_ints
