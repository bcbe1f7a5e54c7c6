#include "workloads/microbench/run_microbench.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "models/machine/machine.h"
#include "models/topology/resource_class.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"
#include "workloads/microbench/microbench_limits.h"
#include "workloads/microbench/stream_kernel.h"
#include "workloads/microbench/sync_kernels.h"

namespace tessera::workloads::microbench {
namespace {

using models::compute::KernelId;
using models::compute::KernelLaunch;
using models::compute::KernelRecord;
using models::machine::Machine;

// Each GPU's memory is laid out as: the buffer it sends or reads from at 0, then one receive
// slot per GPU (slot q holds what GPU q wrote here), each rounded up to 2 MiB.
struct Layout {
  std::uint64_t region;
  std::uint64_t source() const { return 0; }
  std::uint64_t slot(std::uint32_t from) const { return region * (1 + std::uint64_t{from}); }
};

double gbps(std::uint64_t bytes, sim::Tick ps) {
  return ps == 0 ? 0.0 : static_cast<double>(bytes) / (static_cast<double>(ps) / 1e12) / 1e9;
}

// What one run sets up: the machine, the bodies (they must outlive their kernels) and which
// kernels are timed.
class Bench {
 public:
  Bench(const models::SystemSpec& system, const MicrobenchParams& p)
      : p_(p),
        machine_(sim::Context{engine_, stats_}, system),
        layout_{(p.bytes + (2ULL << 20) - 1) / (2ULL << 20) * (2ULL << 20)} {
    workgroups_ = p.workgroups != 0 ? p.workgroups
                  : is_bandwidth_op(p.op) ? models::total_compute_units(system.gpu)
                                          : 1;
  }

  MicrobenchResult run(const sim::RunLimits& limits) {
    MicrobenchResult r;
    r.op = p_.op;
    r.workgroups = workgroups_;
    launch(r);
    const auto t0 = std::chrono::steady_clock::now();
    const sim::RunResult run = engine_.run(limits.stop_conditions());
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.events = run.events;
    r.stop_reason = run.reason;
    r.complete = sim::ran_to_completion(run.reason);
    r.makespan_ps = engine_.now();
    if (r.complete) measure(r);
    r.resource_usage = models::machine::resource_usage(machine_, r.makespan_ps);
    for (const auto& [cls, use] : r.resource_usage) r.link_class_bytes[cls] = use.bytes;
    r.memory = machine_.memory().totals();
    r.statistics = stats_.snapshot();
    return r;
  }

 private:
  KernelId launch_kernel(std::uint32_t gpu, std::string name, std::uint32_t workgroups,
                         models::compute::WorkgroupBody& body) {
    return machine_.gpu(gpu).launch(KernelLaunch{std::move(name), 0, workgroups, &body, {}, {}, 0, {}});
  }

  // A timed streaming kernel ends with the kernel-boundary release (dirty L2 data written
  // back), as the next kernel or the host would see it; its span ends when that has landed.
  void launch_stream(std::uint32_t gpu, StreamPlan plan, std::string name) {
    streams_.push_back(std::make_unique<StreamKernel>(machine_, gpu, std::move(plan)));
    const auto index = static_cast<std::uint64_t>(timed_.size());
    timed_.push_back({gpu, 0, 0});
    timed_.back().kernel = machine_.gpu(gpu).launch(KernelLaunch{std::move(name), 0, workgroups_, streams_.back().get(),
                                                                 {}, sim::bind<&Bench::on_kernel_complete>(this), index, {}});
  }

  void on_kernel_complete(const sim::Payload& payload) {
    machine_.memory().release_all(timed_[payload.a].gpu, sim::bind<&Bench::on_released>(this), {payload.a, 0});
  }
  void on_released(const sim::Payload& payload) { timed_[payload.a].end_ps = engine_.now(); }

  StreamPlan plan(std::vector<StreamSegment> segments, std::uint32_t passes = 1) const {
    return StreamPlan{std::move(segments), p_.bytes, p_.chunk_bytes, passes};
  }

  void launch(MicrobenchResult& r) {
    const std::uint32_t g = p_.gpu;
    const std::uint32_t n = machine_.num_gpus();
    switch (p_.op) {
      case Op::kHbmStream:
        launch_stream(g, plan({{BufferRef{g, layout_.source()}, BufferRef{g, layout_.slot(g)}}}), "hbm_stream");
        r.counted_bytes = 2 * p_.bytes;
        break;
      case Op::kL2Bandwidth: {
        // A warm-up pass fills the L2s; the timed kernel then re-reads the working set.
        warmup_ = std::make_unique<StreamKernel>(machine_, g, plan({{BufferRef{g, 0}, std::nullopt}}));
        launch_kernel(g, "l2_warmup", workgroups_, *warmup_);
        launch_stream(g, plan({{BufferRef{g, 0}, std::nullopt}}, p_.iterations), "l2_bandwidth");
        r.counted_bytes = p_.bytes * p_.iterations;
        break;
      }
      case Op::kRemoteLoad:
        launch_stream(g, plan({{BufferRef{p_.peer, layout_.source()}, std::nullopt}}), "remote_load");
        r.counted_bytes = p_.bytes;
        break;
      case Op::kRemoteStore:
        launch_stream(g, plan({{std::nullopt, BufferRef{p_.peer, layout_.slot(g)}}}), "remote_store");
        r.counted_bytes = p_.bytes;
        break;
      case Op::kAllLoad:
      case Op::kAllStore:
        for (std::uint32_t self = 0; self < n; ++self) {
          std::vector<StreamSegment> segments;
          for (std::uint32_t peer = 0; peer < n; ++peer) {
            if (peer == self) continue;
            if (p_.op == Op::kAllLoad) {
              segments.push_back({BufferRef{peer, layout_.source()}, std::nullopt});
            } else {
              segments.push_back({std::nullopt, BufferRef{peer, layout_.slot(self)}});
            }
          }
          launch_stream(self, plan(std::move(segments)), std::string(name_of(p_.op)));
        }
        r.counted_bytes = p_.bytes * (n - 1);
        break;
      case Op::kAtomicAdd:
      case Op::kAtomicXchg: {
        const std::uint32_t home = n > 1 ? p_.peer : g;
        atomics_ = std::make_unique<AtomicChainKernel>(machine_, g, home,
                                                       p_.op == Op::kAtomicAdd ? AtomicKind::kAdd : AtomicKind::kExchange,
                                                       p_.iterations);
        timed_.push_back({g, launch_kernel(g, std::string(name_of(p_.op)), workgroups_, *atomics_), 0});
        break;
      }
      case Op::kFlagPingpong:
        pings_.push_back(std::make_unique<PingPongKernel>(machine_, g, p_.peer, true, p_.iterations));
        pings_.push_back(std::make_unique<PingPongKernel>(machine_, p_.peer, g, false, p_.iterations));
        timed_.push_back({g, launch_kernel(g, "ping", 1, *pings_[0]), 0});
        launch_kernel(p_.peer, "pong", 1, *pings_[1]);
        break;
      case Op::kLaunchLatency:
        for (std::uint32_t i = 0; i < p_.iterations; ++i) {
          timed_.push_back({g, launch_kernel(g, "empty", workgroups_, empty_), 0});
        }
        break;
      case Op::kP2pCopy:
        machine_.memory().dma_copy(g, layout_.source(), p_.peer, layout_.slot(g), p_.bytes,
                                   sim::bind<&Bench::on_copy_done>(this));
        r.counted_bytes = p_.bytes;
        break;
    }
  }

  void on_copy_done(const sim::Payload&) { copy_done_ps_ = engine_.now(); }

  void measure(MicrobenchResult& r) {
    switch (p_.op) {
      case Op::kAtomicAdd:
      case Op::kAtomicXchg:
      case Op::kFlagPingpong: {
        // The dependent chain inside the kernel: first workgroup start to last end.
        const KernelRecord& k = machine_.gpu(timed_[0].gpu).kernel(timed_[0].kernel);
        r.timed_ps = k.last_workgroup_end_ps - k.first_workgroup_start_ps;
        const double ops = p_.op == Op::kFlagPingpong ? 2.0 * p_.iterations : p_.iterations;
        r.latency_ns = static_cast<double>(r.timed_ps) / ops / 1e3;
        return;
      }
      case Op::kLaunchLatency: {
        const auto& gpu = machine_.gpu(p_.gpu);
        r.timed_ps = gpu.kernel(timed_.back().kernel).completion_ps - gpu.kernel(timed_.front().kernel).enqueue_ps;
        r.latency_ns = static_cast<double>(r.timed_ps) / p_.iterations / 1e3;
        return;
      }
      case Op::kP2pCopy:
        r.timed_ps = copy_done_ps_;
        break;
      default:
        // Every timed kernel from its launch to the end of its release; the slowest GPU sets the span.
        for (const auto& t : timed_) r.timed_ps = std::max(r.timed_ps, t.end_ps - machine_.gpu(t.gpu).kernel(t.kernel).launch_ps);
        break;
    }
    r.bandwidth_GBps = gbps(r.counted_bytes, r.timed_ps);
  }

  struct Timed {
    std::uint32_t gpu;
    KernelId kernel;
    sim::Tick end_ps;  // streaming kernels: when the release after completion ended
  };

  MicrobenchParams p_;
  sim::Engine engine_;
  sim::stats::StatRegistry stats_;
  Machine machine_;
  Layout layout_;
  std::uint32_t workgroups_ = 0;
  std::vector<std::unique_ptr<StreamKernel>> streams_;
  std::unique_ptr<StreamKernel> warmup_;
  std::unique_ptr<AtomicChainKernel> atomics_;
  std::vector<std::unique_ptr<PingPongKernel>> pings_;
  EmptyKernel empty_;
  std::vector<Timed> timed_;
  sim::Tick copy_done_ps_ = 0;
};

}  // namespace

MicrobenchResult run_microbench(const models::SystemSpec& system, const MicrobenchParams& params,
                                const sim::RunLimits& limits) {
  if (const auto problem = check_against_system(params, system.num_gpus)) {
    throw std::invalid_argument(fmt::format("microbench {}: {}", problem->key, problem->message));
  }
  // Before the machine is built and the kernels enqueued.
  if (const auto problem = size_problem(params, system)) {
    throw std::invalid_argument(fmt::format("microbench {}: {}", problem->key, problem->message));
  }
  auto bench = std::make_unique<Bench>(system, params);
  return bench->run(limits);
}

WorkloadResult to_workload_result(const MicrobenchResult& r) {
  WorkloadResult out;
  out.makespan_ps = r.makespan_ps;
  out.complete = r.complete;
  out.stop_reason = r.stop_reason;
  out.events = r.events;
  out.wall_s = r.wall_s;
  Measurement& m = out.measurement.emplace();
  m.op = name_of(r.op);
  m.workgroups_per_gpu = r.workgroups;
  m.timed_ps = r.timed_ps;
  if (r.bandwidth_GBps) {
    m.counted_bytes_per_gpu = r.counted_bytes;
    m.bandwidth_GBps = r.bandwidth_GBps;
  }
  m.latency_ns = r.latency_ns;
  // Hit rates of the bytes loaded (local and remote): the L2's share of all loaded bytes, the
  // MALL's share of what reached the memory side; none when nothing was loaded there.
  const auto& mem = r.memory;
  const std::uint64_t loaded = mem.l2_hit_bytes + mem.mall_hit_bytes + mem.hbm_read_bytes - mem.dma_bytes;
  const std::uint64_t memory_side = mem.mall_hit_bytes + mem.hbm_read_bytes - mem.dma_bytes;
  Traffic& t = out.traffic.emplace();
  if (loaded > 0) t.l2_hit_rate = static_cast<double>(mem.l2_hit_bytes) / static_cast<double>(loaded);
  if (memory_side > 0) t.mall_hit_rate = static_cast<double>(mem.mall_hit_bytes) / static_cast<double>(memory_side);
  t.link_class_bytes = r.link_class_bytes;
  t.resource_usage = r.resource_usage;
  out.statistics = r.statistics;
  t.memory_bytes = MemoryBytes{mem.l2_hit_bytes,      mem.mall_hit_bytes,     mem.hbm_read_bytes, mem.hbm_write_bytes,
                               mem.remote_load_bytes, mem.remote_store_bytes, mem.dma_bytes};
  return out;
}

}  // namespace tessera::workloads::microbench
