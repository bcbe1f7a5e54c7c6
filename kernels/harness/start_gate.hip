#include "harness/start_gate.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

namespace tk {

namespace {

__global__ void start_gate_kernel(volatile int* slots, int rank) {
  if (threadIdx.x != 0) return;
  slots[1 + rank] = 1;
  __threadfence_system();
  while (slots[0] == 0) {
  }
}

}  // namespace

StartGate::StartGate(const Context& context) : ranks_(context.ranks()) {
  HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&host_), sizeof(int) * (1 + ranks_), 0));
  close();
}

StartGate::~StartGate() {
  if (host_ != nullptr) (void)hipHostFree(host_);
}

void StartGate::close() {
  volatile int* slots = host_;
  for (int i = 0; i <= ranks_; ++i) slots[i] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void StartGate::hold(const Context& context, int rank) {
  context.use(rank);
  hipLaunchKernelGGL(start_gate_kernel, dim3(1), dim3(1), 0, context.stream(rank), static_cast<volatile int*>(host_), rank);
  HIP_CHECK(hipGetLastError());
}

void StartGate::release(double timeout_s) {
  volatile int* slots = host_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (int rank = 0; rank < ranks_; ++rank) {
    while (slots[1 + rank] == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        slots[0] = 1;  // let whatever did start finish
        throw std::runtime_error("start gate: rank " + std::to_string(rank) + "'s gate kernel did not start within " +
                                 std::to_string(timeout_s) + " s");
      }
    }
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  slots[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace tk
