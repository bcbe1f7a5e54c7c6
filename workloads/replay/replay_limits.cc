#include "workloads/replay/replay_limits.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/config/approximate_bytes.h"
#include "sim/config/units.h"
#include "workloads/replay/address_map.h"
#include "workloads/replay/work_bound.h"
#include "workloads/workload_limits.h"

namespace tessera::workloads::replay {
namespace {

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return a > ~std::uint64_t{0} - b ? ~std::uint64_t{0} : a + b; }

// "A 1.1 TB, B 512 GB, ..." : the largest buffers first, the ones a user would shrink.
std::string largest_buffers(const trace::Trace& t) {
  std::vector<const trace::Buffer*> buffers;
  for (const trace::Buffer& b : t.buffers) buffers.push_back(&b);
  std::stable_sort(buffers.begin(), buffers.end(), [](const auto* a, const auto* b) { return a->bytes > b->bytes; });
  std::string out;
  for (std::size_t i = 0; i < buffers.size() && i < 3; ++i) {
    out += fmt::format("{}{} {}", i > 0 ? ", " : "", buffers[i]->name, sim::config::approximate_bytes(buffers[i]->bytes));
  }
  if (buffers.size() > 3) out += fmt::format(" and {} more", buffers.size() - 3);
  return out;
}

}  // namespace

std::uint64_t laid_out_bytes_per_rank(const trace::Trace& t) {
  constexpr std::uint64_t kAlign = AddressMap::kAlignment;
  std::uint64_t total = 0;
  for (const trace::Buffer& b : t.buffers) {
    const std::uint64_t rounded = b.bytes > ~std::uint64_t{0} - (kAlign - 1) ? ~std::uint64_t{0}
                                                                             : (b.bytes + kAlign - 1) / kAlign * kAlign;
    total = saturating_add(total, rounded);
  }
  return total;
}

std::optional<std::string> limits_problem(const trace::Trace& t, const models::SystemSpec& system) {
  const std::uint64_t hbm = system.gpu.memory.hbm_capacity_bytes;
  const std::uint64_t per_rank = laid_out_bytes_per_rank(t);
  if (per_rank > hbm) {
    return fmt::format("the buffers need {} per GPU ({}, each rounded up to 2 MiB); a {} has {} of HBM",
                       sim::config::approximate_bytes(per_rank), largest_buffers(t), system.gpu.model,
                       sim::config::format_bytes(hbm));
  }
  std::uint64_t workgroups = 0;
  WorkBound total;
  for (std::size_t k = 0; k < t.kernels.size(); ++k) {
    const trace::Kernel& kernel = t.kernels[k];
    if (kernel.grid > kMaxWorkgroupsPerKernel) {
      return fmt::format("kernel '{}' on rank {} has {} workgroups; at most {} per kernel", kernel.name, kernel.rank,
                         kernel.grid, kMaxWorkgroupsPerKernel);
    }
    const std::uint32_t cus_per_die = system.gpu.compute.compute_units_per_die;
    if (kernel.cu_count > 0 && std::uint64_t{kernel.cu_first} + kernel.cu_count > cus_per_die) {
      return fmt::format("kernel '{}' on rank {} asks for CUs [{}, {}) of each die; a {} has {} per die", kernel.name,
                         kernel.rank, kernel.cu_first, std::uint64_t{kernel.cu_first} + kernel.cu_count,
                         system.gpu.model, cus_per_die);
    }
    workgroups = saturating_add(workgroups, kernel.grid);
    const WorkBound bound = kernel_work_bound(t, k);
    total.operations = saturating_add(total.operations, bound.operations);
    total.bytes_moved = saturating_add(total.bytes_moved, bound.bytes_moved);
  }
  if (workgroups > kMaxWorkgroups) {
    return fmt::format("the kernels have {} workgroups in all; at most {} (2^32)", workgroups, kMaxWorkgroups);
  }
  if (total.operations > kMaxOperations) {
    return fmt::format("the workgroups would issue at least {:.3g} operations (loop counts times grids); at most "
                       "{:.0e}, more than a day of simulation",
                       static_cast<double>(total.operations), static_cast<double>(kMaxOperations));
  }
  if (total.bytes_moved > kMaxBytesMoved) {
    return fmt::format("the loads and stores would move at least {} in all; at most {}, more than a day of "
                       "simulation",
                       sim::config::approximate_bytes(total.bytes_moved), sim::config::approximate_bytes(kMaxBytesMoved));
  }
  return std::nullopt;
}

}  // namespace tessera::workloads::replay
