#include "workloads/patterns/collective_op.h"

namespace tessera::workloads::patterns {

const std::vector<std::pair<std::string, CollectiveOp>>& collective_op_choices() {
  static const std::vector<std::pair<std::string, CollectiveOp>> names{
      {"all_gather", CollectiveOp::kAllGather}, {"all_reduce", CollectiveOp::kAllReduce},
      {"reduce_scatter", CollectiveOp::kReduceScatter}, {"broadcast", CollectiveOp::kBroadcast},
      {"reduce", CollectiveOp::kReduce}, {"all_to_all", CollectiveOp::kAllToAll}};
  return names;
}

std::string op_name(CollectiveOp op) { return collective_op_choices().at(static_cast<std::size_t>(op)).first; }

}  // namespace tessera::workloads::patterns
