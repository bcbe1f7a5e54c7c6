#pragma once
// The concatenation that follows a collective all-gather in the BSP baseline of the public
// benchmarks (docs/workloads.md: collective all-gather + concat + GEMM): the all-gather leaves
// the shards one after another ([ranks][m x k_s]); the GEMM wants A as one m x k matrix
// (torch.cat along K). A copy kernel: it reads and writes every byte once more, which is part
// of the BSP data-locality and launch taxes.
//
// Work: ranks * m segments of one shard row (k_s elements), grid-strided over the workgroups;
// segment j = (slab j / m, row j % m). With rows addressing the destination is the row's
// place in the m x k matrix; with panels the two layouts coincide (see tile_addressing.h), so
// the copy keeps offsets, with the same bytes and op count.
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/patterns/tile_addressing.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

struct ConcatSpec {
  std::string name = "concat";
  SlabLayout slabs;  // the gathered layout (placement kStacked); the destination is its kOneMatrix twin
  std::uint32_t source_buffer = trace::kNoBuffer;
  std::uint32_t destination_buffer = trace::kNoBuffer;
  std::uint64_t workgroups = 1;
  std::uint32_t stream = 0;
};

// Adds the program and one kernel per rank (launched in rank order); returns the kernel indices.
std::vector<std::uint32_t> append_concat(trace::TraceBuilder& builder, std::uint32_t ranks, const ConcatSpec& spec);

}  // namespace tessera::workloads::patterns
