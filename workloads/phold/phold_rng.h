#pragma once
// The random draws of one PHOLD process. Each process owns its generator (seeded from the run
// seed and its index), so the draws do not depend on how processes interleave, and the engine
// run and the bare loop draw exactly the same numbers.
#include <cmath>
#include <cstdint>

#include "workloads/phold/phold_params.h"

namespace tessera::workloads::phold {

class PholdRng {
 public:
  PholdRng(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (0x9e3779b97f4a7c15ULL * (stream + 1));
    for (auto& s : s_) s = splitmix64(x);
  }

  // xoshiro256** (Blackman and Vigna): fast, and good enough for a benchmark's draws.
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in (0, 1]: never 0, so log() below is finite.
  double uniform_open0() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }

  sim::Tick delay_ps(const PholdParams& p) {
    return p.min_delay_ps + static_cast<sim::Tick>(-static_cast<double>(p.mean_extra_delay_ps) * std::log(uniform_open0()));
  }

  // Destination of the next event sent by `self`.
  std::uint32_t destination(const PholdParams& p, std::uint32_t self) {
    if (p.remote_frac < 1.0 && uniform_open0() > p.remote_frac) return self;
    // Lemire's multiply-shift: unbiased enough for N << 2^32 and branch-free.
    return static_cast<std::uint32_t>(((next() >> 32) * p.num_lps) >> 32);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t s_[4];
};

}  // namespace tessera::workloads::phold
