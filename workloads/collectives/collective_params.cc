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

const std::vector<std::pair<std::string, CollectiveLibrary>>& collective_library_choices() {
  static const std::vector<std::pair<std::string, CollectiveLibrary>> names{{"tessera", CollectiveLibrary::kTessera},
                                                                                   {"nccl", CollectiveLibrary::kNccl},
                                                                                   {"rccl", CollectiveLibrary::kRccl}};
  return names;
}

const std::vector<std::pair<std::string, CollectiveAlgorithm>>& collective_algorithm_choices() {
  static const std::vector<std::pair<std::string, CollectiveAlgorithm>> names{
      {"auto", CollectiveAlgorithm::kAuto}, {"ring", CollectiveAlgorithm::kRing},
      {"one_shot", CollectiveAlgorithm::kOneShot}, {"tree", CollectiveAlgorithm::kTree},
      {"direct", CollectiveAlgorithm::kDirect}};
  return names;
}

const std::vector<std::pair<std::string, CollectiveHost>>& collective_host_choices() {
  static const std::vector<std::pair<std::string, CollectiveHost>> names{{"none", CollectiveHost::kNone},
                                                                         {"one_thread", CollectiveHost::kOneThread},
                                                                         {"per_rank", CollectiveHost::kPerRank}};
  return names;
}

const std::vector<std::pair<std::string, CollectiveProtocol>>& collective_protocol_choices() {
  static const std::vector<std::pair<std::string, CollectiveProtocol>> names{
      {"auto", CollectiveProtocol::kAuto}, {"ll", CollectiveProtocol::kLL}, {"ll128", CollectiveProtocol::kLL128},
      {"simple", CollectiveProtocol::kSimple}};
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

std::string algorithm_name(CollectiveAlgorithm algorithm) { return name_in(collective_algorithm_choices(), algorithm); }
std::string library_name(CollectiveLibrary library) { return name_in(collective_library_choices(), library); }
std::string protocol_name(CollectiveProtocol protocol) { return name_in(collective_protocol_choices(), protocol); }

}  // namespace tessera::workloads::collectives
