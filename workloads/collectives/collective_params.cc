#include "workloads/collectives/collective_params.h"

#include <stdexcept>

namespace tessera::workloads::collectives {
namespace {

template <class E>
std::string name_in(const std::vector<std::pair<std::string, E>>& table, E value) {
  for (const auto& [name, v] : table) {
    if (v == value) return name;
  }
  throw std::logic_error("collective: a value without a name");
}

}  // namespace

const std::vector<std::pair<std::string, CollectiveOp>>& collective_op_choices() {
  static const std::vector<std::pair<std::string, CollectiveOp>> names{{"all_gather", CollectiveOp::kAllGather},
                                                                       {"all_reduce", CollectiveOp::kAllReduce},
                                                                       {"reduce_scatter", CollectiveOp::kReduceScatter}};
  return names;
}

const std::vector<std::pair<std::string, CollectiveLibrary>>& collective_library_choices() {
  static const std::vector<std::pair<std::string, CollectiveLibrary>> names{{"tessera", CollectiveLibrary::kTessera}};
  return names;
}

const std::vector<std::pair<std::string, CollectiveAlgorithm>>& collective_algorithm_choices() {
  static const std::vector<std::pair<std::string, CollectiveAlgorithm>> names{
      {"ring", CollectiveAlgorithm::kRing}, {"one_shot", CollectiveAlgorithm::kOneShot}};
  return names;
}

const std::vector<std::pair<std::string, models::compute::Dtype>>& collective_dtype_choices() {
  // The element types nccl-tests names half, bfloat16 and float; fp8 is left out: the kernels
  // accumulate in fp32 and nothing here checks an fp8 reduction against a library.
  using models::compute::Dtype;
  static const std::vector<std::pair<std::string, Dtype>> names{
      {"fp16", Dtype::kFp16}, {"bf16", Dtype::kBf16}, {"fp32", Dtype::kFp32}};
  return names;
}

std::string op_name(CollectiveOp op) { return name_in(collective_op_choices(), op); }
std::string algorithm_name(CollectiveAlgorithm algorithm) { return name_in(collective_algorithm_choices(), algorithm); }

}  // namespace tessera::workloads::collectives
