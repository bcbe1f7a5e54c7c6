#include "workloads/replay/replay.h"

#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "models/compute/gpu_compute.h"
#include "models/machine/machine.h"
#include "models/machine/resource_usage.h"
#include "models/topology/resource_class.h"
#include "sim/core/engine.h"
#include "sim/stats/stat_registry.h"
#include "workloads/replay/address_map.h"
#include "workloads/replay/barrier_table.h"
#include "workloads/replay/host_program.h"
#include "workloads/replay/replay_error.h"
#include "workloads/replay/replay_limits.h"
#include "workloads/replay/trace_kernel.h"

namespace tessera::workloads::replay {
namespace {

using models::machine::Machine;

// Everything that can be checked before the machine is built and anything sized by the trace
// is allocated: its structure, its ranks, and its sizes (replay_limits.h).
void check_fits(const trace::Trace& trace, const models::SystemSpec& system) {
  if (auto problem = trace::validate(trace)) throw ReplayError("trace: " + *problem);
  if (trace.ranks > system.num_gpus) {
    throw ReplayError(fmt::format("the trace has {} ranks; system '{}' has {} GPU(s)", trace.ranks, system.name,
                                  system.num_gpus));
  }
  if (auto problem = limits_problem(trace, system)) throw ReplayError(*problem);
}

// Kernels of the same name on different ranks form one all-ranks barrier group.
void group_by_name(const trace::Trace& trace, ReplayContext& context) {
  std::map<std::string, std::uint64_t> index;
  std::map<std::string, std::uint64_t> size;
  for (const trace::Kernel& k : trace.kernels) {
    index.emplace(k.name, index.size());
    size[k.name] += k.grid;
  }
  for (const trace::Kernel& k : trace.kernels) {
    context.name_group.push_back(index.at(k.name));
    context.all_rank_group_size.push_back(size.at(k.name));
  }
}

std::string deadlock_report(const trace::Trace& trace, Machine& machine, const BarrierTable& barriers,
                            const std::vector<std::unique_ptr<HostProgram>>& hosts) {
  std::string out = "the trace cannot finish: nothing will release these waits";
  std::size_t listed = 0;
  for (const auto& w : machine.flags().pending_waits()) {
    if (listed++ == 16) {
      out += "\n  ...";
      break;
    }
    out += fmt::format("\n  rank {} waits since {:.3f} ns for flag (rank {}, id {}) {} {} (value {})", w.waiter_gpu,
                       static_cast<double>(w.since_ps) / 1e3, w.flag.gpu, w.flag.id,
                       w.op == models::sync::Compare::kGe ? ">=" : "to compare with", w.target, w.value);
  }
  for (const auto& b : barriers.pending()) {
    out += fmt::format("\n  {} barrier {} of kernel group {}: {} of {} workgroups arrived",
                       trace::scope_name(static_cast<trace::BarrierScope>(b.key.scope)), b.key.id, b.key.group, b.arrived,
                       b.expected);
    if (b.key.scope == static_cast<std::uint8_t>(trace::BarrierScope::kDevice)) {
      out += " (a device barrier needs every workgroup of the grid resident at once)";
    }
  }
  for (std::uint32_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r]->finished()) continue;
    out += fmt::format("\n  rank {} host stopped at command {}{}", r, hosts[r]->position(),
                       hosts[r]->at_rank_barrier() ? " (a rank_barrier that not every rank reaches)" : "");
  }
  return out;
}

// The utilisation series of every link the run used (a resource that carried bytes).
void record_links(Machine& machine, sim::Tick end_ps, std::uint64_t max_recorded, ActivityLog& log) {
  const auto& topo = machine.topology();
  for (std::size_t id = 0; id < topo.num_resources(); ++id) {
    const auto rid = static_cast<models::topology::ResourceId>(id);
    const auto net_id = machine.network_id(rid);
    if (machine.network().bytes_carried(net_id) == 0) continue;
    const auto& resource = topo.resource(rid);
    const auto link = static_cast<std::uint32_t>(log.links.size());
    log.links.push_back({resource.label.empty() ? resource.spec.name : resource.label,
                         std::string(models::topology::to_string(resource.resource_class)),
                         resource.spec.bandwidth_bytes_per_s});
    for (const auto& sample : machine.network().utilisation_series(net_id)) {
      if (log.slices.size() + log.flags.size() + log.gpu_stretches.size() + log.link_samples.size() >= max_recorded) {
        log.truncated = true;
        return;
      }
      if (sample.time_ps > end_ps) break;
      log.link_samples.push_back({link, sample.time_ps, sample.utilisation_frac});
    }
  }
}

// One replay. With `recorder`, it records the trace's data dependencies; with `dataflow`, it runs
// on them alone (the oracle).
ReplayResult replay_once(const trace::Trace& trace, const models::SystemSpec& system, const ReplayOptions& options,
                         DataflowRecorder* recorder, const DataflowGraph* dataflow) {
  const AddressMap addresses(trace);

  sim::Engine engine;
  sim::stats::StatRegistry stats;
  Machine machine(sim::Context{engine, stats}, system);
  std::optional<DataflowGate> gate;
  if (dataflow != nullptr) {
    gate.emplace(*dataflow, engine, machine.memory());
    for (std::uint32_t r = 0; r < trace.ranks; ++r) machine.gpu(r).dispatch_oldest_first();
  }
  BarrierTable barriers(engine);
  const bool record = options.activity != ActivityDetail::kNone;
  machine.network().record_utilisation(record);
  const IntermediateMap intermediates(trace);
  ReplayResult result;
  TaxLedger ledger(trace, intermediates, engine, record ? &result.activity : nullptr,
                   options.activity == ActivityDetail::kWorkgroups, options.max_recorded);
  ReplayContext context{machine,        trace, addresses, barriers, intermediates, ledger, options.ideal_locality,
                        {},             {},    recorder,  gate ? &*gate : nullptr};
  group_by_name(trace, context);

  std::vector<trace::CompiledProgram> programs;
  programs.reserve(trace.programs.size());
  for (const trace::Program& p : trace.programs) programs.emplace_back(p);
  std::vector<std::unique_ptr<TraceKernel>> bodies;
  for (std::uint32_t k = 0; k < trace.kernels.size(); ++k) {
    bodies.push_back(std::make_unique<TraceKernel>(context, k, programs[trace.kernels[k].program]));
  }
  std::vector<models::compute::KernelId> kernel_ids(trace.kernels.size(), 0);
  RankBarrier rank_barrier(trace.ranks);
  std::vector<std::unique_ptr<HostProgram>> hosts;
  for (std::uint32_t r = 0; r < trace.ranks; ++r) {
    hosts.push_back(std::make_unique<HostProgram>(machine, trace, r, bodies, kernel_ids, rank_barrier, ledger, engine,
                                                  HostOptions{options.ideal_locality, dataflow != nullptr, options.skip_host_delays}));
  }

  const auto t0 = std::chrono::steady_clock::now();
  for (auto& h : hosts) h->start();
  const sim::RunResult run = engine.run(options.limits.stop_conditions());
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.events = run.events;
  result.stop_reason = run.reason;
  result.complete = sim::ran_to_completion(run.reason);
  result.makespan_ps = engine.now();

  bool all_done = true;
  for (std::uint32_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& tk = trace.kernels[k];
    KernelTiming t{tk.name, tk.rank, tk.stream, tk.grid, 0, 0, 0, false};
    const auto& records = machine.gpu(tk.rank).kernels();
    if (kernel_ids[k] < records.size() && records[kernel_ids[k]].name == tk.name) {
      const auto& rec = records[kernel_ids[k]];
      t.launch_ps = rec.launch_ps;
      t.start_ps = rec.first_workgroup_start_ps;
      t.end_ps = rec.completion_ps;
      t.completed = rec.completed;
      t.times = ledger.kernel_times(k, t.end_ps - t.launch_ps);
    }
    all_done = all_done && t.completed;
    result.kernels.push_back(std::move(t));
  }
  for (const auto& h : hosts) all_done = all_done && h->finished();
  if (result.complete && !all_done) throw DeadlockError(deadlock_report(trace, machine, barriers, hosts));

  ledger.close();
  sim::Tick critical_end = 0;
  for (std::uint32_t r = 0; r < trace.ranks; ++r) result.gpu_times.push_back(ledger.gpu_times(r));
  for (const KernelTiming& k : result.kernels) {
    if (k.end_ps > critical_end || (k.end_ps == critical_end && k.rank < result.critical_rank)) {
      critical_end = k.end_ps;
      result.critical_rank = k.rank;
    }
  }
  if (!result.gpu_times.empty()) result.times = result.gpu_times[result.critical_rank];
  if (record) record_links(machine, result.makespan_ps, options.max_recorded, result.activity);

  // Hit rates and traffic.
  const auto& die_loads = machine.memory().die_loads();
  const std::uint32_t dies = system.gpu.compute.num_dies;
  std::uint64_t loads = 0;
  std::uint64_t hits = 0;
  result.l2_hit_rate_per_die.assign(trace.ranks, std::vector<double>(dies, -1.0));
  for (std::uint32_t r = 0; r < trace.ranks; ++r) {
    for (std::uint32_t d = 0; d < dies; ++d) {
      const auto& dl = die_loads[std::size_t{r} * dies + d];
      loads += dl.load_bytes;
      hits += dl.l2_hit_bytes;
      if (dl.load_bytes > 0) {
        result.l2_hit_rate_per_die[r][d] = static_cast<double>(dl.l2_hit_bytes) / static_cast<double>(dl.load_bytes);
      }
    }
  }
  result.l2_hit_rate = loads > 0 ? static_cast<double>(hits) / static_cast<double>(loads) : 0.0;
  const auto& totals = machine.memory().totals();
  const std::uint64_t memory_side = totals.mall_hit_bytes + totals.hbm_read_bytes;
  result.mall_hit_rate = memory_side > 0 ? static_cast<double>(totals.mall_hit_bytes) / static_cast<double>(memory_side) : 0.0;
  result.resource_usage = models::machine::resource_usage(machine, result.makespan_ps);
  for (const auto& [cls, use] : result.resource_usage) result.link_class_bytes[cls] = use.bytes;
  result.statistics = stats.snapshot();
  return result;
}

}  // namespace

ReplayResult replay_trace(const trace::Trace& trace, const models::SystemSpec& system, ReplayOptions options) {
  check_fits(trace, system);
  if (!options.dataflow_oracle) return replay_once(trace, system, options, nullptr, nullptr);
  DataflowRecorder recorder;
  ReplayOptions as_traced = options;
  as_traced.activity = ActivityDetail::kNone;
  ReplayResult reference = replay_once(trace, system, as_traced, &recorder, nullptr);
  if (!reference.complete) return reference;  // a limit stopped it: the dependencies are partial
  const DataflowGraph graph = recorder.take();
  return replay_once(trace, system, options, nullptr, &graph);
}

}  // namespace tessera::workloads::replay
