#pragma once
// What runs the collective of a bulk-synchronous (bsp) variant, and what the host does between
// its kernels: the keys `collective` and `host` of ag_gemm, gemm_all_scatter, gemm_all_reduce
// and flash_decode (docs/workloads.md says what bsp means in each).
//
//   collective  ring, one_shot  Tessera's kernels (all_gather.h, all_reduce.h), with the
//                               variant's collective_workgroups and collective_chunk
//               nccl, rccl      the vendor library's own choice of algorithm, protocol and
//                               channels for that op and size on the system (nccl_tuning.h,
//                               rccl_tuning.h), run as the library's kernels run (nccl_kernels.h):
//                               what a PyTorch baseline's torch.distributed call launches
//   host        none            kernels back to back on each rank's stream: the GPU time alone
//               pytorch         each rank's process (one per GPU) spends the system's
//                               host.framework_op before each compute kernel and
//                               host.framework_collective before the collective, as eager PyTorch
//                               does; a kernel waits only where the host falls behind the GPU
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/compute_timing.h"
#include "models/system/system_spec.h"
#include "workloads/patterns/all_gather.h"
#include "workloads/patterns/all_reduce.h"
#include "workloads/patterns/collective_op.h"
#include "workloads/patterns/param_problem.h"
#include "workloads/trace/builder.h"

namespace tessera::workloads::patterns {

enum class BspCollective : std::uint8_t { kRing, kOneShot, kNccl, kRccl };
enum class BspHost : std::uint8_t { kNone, kPytorch };
const std::vector<std::pair<std::string, BspCollective>>& bsp_collective_choices();
const std::vector<std::pair<std::string, BspHost>>& bsp_host_choices();

// The library's choice rather than one of Tessera's kernels.
bool runs_library(BspCollective collective);
// Tessera's kernel for a collective that does not run a library.
AllGatherAlgorithm tessera_all_gather(BspCollective collective);
AllReduceAlgorithm tessera_all_reduce(BspCollective collective);

// host: pytorch needs the system's framework costs; nullopt when the host can run.
std::optional<ParamProblem> host_problem(BspHost host, const models::SystemSpec& system);

// Before the next compute kernel (framework_op) or collective (framework_collective) of every
// rank: the host's time under `host`; nothing for host: none.
void append_framework_op(trace::TraceBuilder& builder, std::uint32_t ranks, const models::SystemSpec& system, BspHost host);
void append_framework_collective(trace::TraceBuilder& builder, std::uint32_t ranks, const models::SystemSpec& system,
                                 BspHost host);

// One collective as the vendor library runs it, out of place, with nccl-tests' size (for
// all_gather the gathered bytes): the library's plan for the system and ranks, its FIFO buffer,
// its kernels on stream 0 of every rank.
struct LibraryCollectiveSpec {
  std::string name;
  CollectiveOp op = CollectiveOp::kAllGather;
  BspCollective library = BspCollective::kNccl;  // kNccl or kRccl
  models::compute::Dtype dtype = models::compute::Dtype::kFp16;
  std::uint64_t size_bytes = 0;
  std::uint32_t input_buffer = trace::kNoBuffer;
  std::uint32_t output_buffer = trace::kNoBuffer;
  bool in_place = false;  // all_gather: the input is the rank's block of the output (NcclKernelSpec::in_place)
  std::uint64_t flag_base = 0;
};
// Returns the flags the kernels use from flag_base.
std::uint64_t append_library_collective(trace::TraceBuilder& builder, std::uint32_t ranks,
                                        const models::SystemSpec& system, const LibraryCollectiveSpec& spec);

}  // namespace tessera::workloads::patterns
