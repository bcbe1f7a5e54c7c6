#pragma once
// The collective operations, as nccl-tests names them (root 0 for broadcast and reduce): what the
// collective kernels of this directory run (Tessera's own and NCCL's, nccl_kernels.h) and what the
// collective workload (workloads/collectives/) and the bulk-synchronous variants ask them for.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::workloads::patterns {

enum class CollectiveOp : std::uint8_t { kAllGather, kAllReduce, kReduceScatter, kBroadcast, kReduce, kAllToAll };

// The names a config uses ("all_gather", ...), in the enum's order.
const std::vector<std::pair<std::string, CollectiveOp>>& collective_op_choices();
std::string op_name(CollectiveOp op);

}  // namespace tessera::workloads::patterns
