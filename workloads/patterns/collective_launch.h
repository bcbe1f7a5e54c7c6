#pragma once
// How every collective kernel is launched: the same program, grid and CU partition on each of
// the ranks taking part (the all-gather, reduce-scatter and all-reduce kernels share this).
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

template <class Spec>  // any collective spec with name, stream, cu_first, cu_count
std::vector<std::uint32_t> launch_on_every_rank(trace::TraceBuilder& builder, const Spec& spec, std::uint32_t ranks,
                                                std::uint64_t grid, std::uint32_t program) {
  std::vector<std::uint32_t> kernels;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    trace::Kernel k;
    k.name = spec.name;
    k.rank = rank;
    k.stream = spec.stream;
    k.grid = grid;
    k.program = program;
    k.cu_first = spec.cu_first;
    k.cu_count = spec.cu_count;
    k.collective = true;
    kernels.push_back(builder.launch(std::move(k)));
  }
  return kernels;
}

}  // namespace tessera::workloads::patterns
