// Flags and atomics at system scope, the same on both platforms, for the producer/consumer patterns: a producer
// stores its tile, then releases a flag; a consumer acquires the flag (spinning), then reads the tile. System scope
// because the flag and the data may live in a peer GPU's memory.
#pragma once

namespace tk {

#if defined(TK_PLATFORM_AMD)

__device__ inline void flag_release_system(int* flag, int value) {
  __hip_atomic_store(flag, value, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline int flag_acquire_system(const int* flag) {
  return __hip_atomic_load(const_cast<int*>(flag), __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline int atomic_add_system(int* target, int value) {
  return __hip_atomic_fetch_add(target, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline float atomic_add_system(float* target, float value) {
  return __hip_atomic_fetch_add(target, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline int atomic_exchange_system(int* target, int value) {
  return __hip_atomic_exchange(target, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}

#else  // NVIDIA: PTX acquire/release at .sys scope (sm_70 and later).

__device__ inline void flag_release_system(int* flag, int value) {
  asm volatile("st.release.sys.global.s32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
__device__ inline int flag_acquire_system(const int* flag) {
  int value;
  asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
  return value;
}
__device__ inline int atomic_add_system(int* target, int value) { return atomicAdd_system(target, value); }
__device__ inline float atomic_add_system(float* target, float value) { return atomicAdd_system(target, value); }
__device__ inline int atomic_exchange_system(int* target, int value) { return atomicExch_system(target, value); }

#endif

// Spins until *flag >= expected (flags count up, so a reset is never needed inside one timed iteration).
__device__ inline void flag_wait_at_least(const int* flag, int expected) {
  while (flag_acquire_system(flag) < expected) {
  }
}

}  // namespace tk
