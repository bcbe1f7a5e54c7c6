// collective_kernel: the GPU time of each of the collective library's kernels beyond the data
// movement and flag handshakes Tessera runs for it, per protocol, from the library's kernel
// times (schema tessera-nccl-kernel-times/1: kernels/framework/nccl_kernel_times.py).
//   kernel time = Tessera's kernel (the overhead at 0) + gpu.collective_library.<protocol>_kernel_overhead
//   value = median over the points of (measured kernel time - Tessera's kernel)
//
// Why this model. Measured on the GPU alone (CUPTI, each call on idle GPUs), NCCL's kernels take
// a time that Tessera's programs of the same kernels (nccl_kernels.h: the same slices, FIFOs and
// head/tail handshakes over the modelled links) fall short of by a near-constant amount per
// protocol: on two H200s 9-12 us with Simple, 6-8 us with LL128 and about 1 us with LL, the same
// from 8 KiB to 32 MiB (docs/validation.md, "NCCL's kernels on the GPU"). The difference does
// not grow with the bytes or the ring steps, so it is a per-kernel cost that the data path does
// not explain; its cause inside NCCL is not identified (candidates: the kernel's setup of its
// channels and connections, Simple's memory fences), so it is fitted as what it is, a time per
// kernel. The points are the sizes up to 512 KiB with the protocol forced (NCCL_PROTO): there
// the data moves in a few microseconds and the difference is the overhead; larger sizes test the
// rate, which validate checks. The median, as collective_call's: robust to one slow point.
#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/calibration/fits.h"
#include "sim/app/calibration/library_collective_runs.h"
#include "sim/app/validation/collective_cases.h"
#include "sim/config/units.h"

namespace tessera::app::calibration {
namespace {

// The largest size read: up to here a collective's data moves in a few microseconds.
constexpr std::uint64_t kMaxBytes = 512 * 1024;

struct ProtocolKey {
  const char* protocol;  // as LibraryKernelTime::protocol
  const char* key;
  sim::Tick models::CollectiveLibrarySpec::*field;
};
constexpr std::array<ProtocolKey, 3> kProtocols = {{
    {"ll", "gpu.collective_library.ll_kernel_overhead", &models::CollectiveLibrarySpec::ll_kernel_overhead_ps},
    {"ll128", "gpu.collective_library.ll128_kernel_overhead", &models::CollectiveLibrarySpec::ll128_kernel_overhead_ps},
    {"simple", "gpu.collective_library.simple_kernel_overhead", &models::CollectiveLibrarySpec::simple_kernel_overhead_ps},
}};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string us(double ns) { return fmt::format("{:.2f} us", ns / 1e3); }

// Tessera's kernel time (ns) of each point on `system`: one call, no host, as the measurement
// took it: per rank from its first workgroup's start to its kernel's end, the shorter rank's.
std::vector<double> tessera_kernel_ns(const FitInputs& in, const models::SystemSpec& system,
                                      const std::vector<const measured::LibraryKernelTime*>& points) {
  const std::string system_argument = in.system_argument.empty() ? system.name : std::string(in.system_argument);
  std::vector<run::RunSpec> runs;
  for (const measured::LibraryKernelTime* p : points) {
    validation::LibraryCollective c;
    c.op = p->op;
    c.size_bytes = p->size_bytes;
    c.dtype = p->dtype;
    c.ranks = p->ranks;
    c.algorithm = p->algorithm;
    c.protocol = p->protocol;
    run::RunSpec spec = validation::library_collective_run(p->display_name, system_argument,
                                                           validation::library_collective_workload(c, "none", 1));
    spec.system = system;
    spec.options.max_wall = in.refine.max_wall;
    runs.push_back(std::move(spec));
  }
  return run_library_collectives(
      std::move(runs), in.refine.jobs,
      [](const workloads::WorkloadResult& w) {
        if (!w.breakdown || w.breakdown->kernels.empty()) throw std::runtime_error("the run reported no kernels");
        double shortest = -1;
        for (const workloads::KernelTiming& k : w.breakdown->kernels) {
          const double ns = static_cast<double>(k.end_ps - k.start_ps) / 1e3;
          if (shortest < 0 || ns < shortest) shortest = ns;
        }
        return shortest;
      },
      [&](std::size_t i) {
        return fmt::format("{} ({} {} of {})", points[i]->display_name, points[i]->op, points[i]->protocol,
                           sim::config::format_bytes(points[i]->size_bytes));
      });
}

FitOutcome fit(const FitInputs& in) {
  FitOutcome out;
  out.fit = "collective_kernel";
  out.model = "kernel time = Tessera's kernel + gpu.collective_library.<protocol>_kernel_overhead (per collective kernel, "
              "on idle GPUs); value = the median of measured - Tessera's kernel";
  out.unit = "ns";
  const std::vector<measured::LibraryKernelTime> none;
  const std::vector<measured::LibraryKernelTime>& all = in.kernel_times != nullptr ? *in.kernel_times : none;
  std::vector<double> measured_all, direct_all, model_all;
  std::vector<std::string> files;
  for (const ProtocolKey& pk : kProtocols) {
    std::vector<const measured::LibraryKernelTime*> points;
    std::size_t larger = 0, too_many_ranks = 0;
    for (const measured::LibraryKernelTime& t : all) {
      if (t.protocol != pk.protocol || t.algorithm == "tree") continue;
      if (t.ranks > in.system.num_gpus) {
        ++too_many_ranks;
      } else if (t.size_bytes > kMaxBytes) {
        ++larger;
      } else {
        points.push_back(&t);
      }
    }
    if (points.empty()) {
      out.not_fitted.push_back({pk.key, all.empty() ? "no collective library kernel times (schema tessera-nccl-kernel-times/1)"
                                                    : fmt::format("no kernel times with NCCL_PROTO={} of {} or less on at most {} GPUs",
                                                                  pk.protocol, sim::config::format_bytes(kMaxBytes), in.system.num_gpus)});
      continue;
    }
    // Tessera without this protocol's overhead, then with the value.
    models::SystemSpec system = in.system;
    system.gpu.collective_library.*pk.field = 0;
    const std::vector<double> bare = tessera_kernel_ns(in, system, points);
    std::vector<double> differences, measured;
    for (std::size_t i = 0; i < points.size(); ++i) {
      measured.push_back(points[i]->kernel_ns);
      differences.push_back(points[i]->kernel_ns - bare[i]);
      if (std::find(files.begin(), files.end(), points[i]->display_name) == files.end()) files.push_back(points[i]->display_name);
    }
    const double value_ns = std::max(0.0, median(differences));
    const CalibrationKey& key = calibration_key(pk.key);
    out.values.push_back({&key, value_ns * 1e3, value_ns * 1e3, median(differences) < 0 ? "the median was negative: clamped at 0" : ""});
    key.set(system, value_ns * 1e3);
    const std::vector<double> with = tessera_kernel_ns(in, system, points);
    for (std::size_t i = 0; i < points.size(); ++i) {
      measured_all.push_back(measured[i]);
      direct_all.push_back(bare[i] + value_ns);
      model_all.push_back(with[i]);
    }
    out.notes.push_back(fmt::format("{}: {} point(s) of {} (ops {}), {} larger left out (the rate shows there){}; measured {} to {}, "
                                    "Tessera's kernel without the overhead {} to {}; differences min {}, median {}, max {}",
                                    pk.protocol, points.size(), points.front()->device, "all_gather, reduce_scatter, all_reduce", larger,
                                    too_many_ranks > 0 ? fmt::format(", {} on more GPUs than the system", too_many_ranks) : "",
                                    us(*std::min_element(measured.begin(), measured.end())),
                                    us(*std::max_element(measured.begin(), measured.end())), us(*std::min_element(bare.begin(), bare.end())),
                                    us(*std::max_element(bare.begin(), bare.end())),
                                    us(*std::min_element(differences.begin(), differences.end())), us(median(differences)),
                                    us(*std::max_element(differences.begin(), differences.end()))));
  }
  out.files = files;
  if (!measured_all.empty()) {
    out.direct = residual_of(measured_all, direct_all);
    out.tessera = residual_of(measured_all, model_all);
  }
  return out;
}

}  // namespace

FitUnit collective_kernel_fit() { return {"collective_kernel", "NCCL kernel times (tessera-nccl-kernel-times/1, up to 512 KiB)", fit}; }

}  // namespace tessera::app::calibration
