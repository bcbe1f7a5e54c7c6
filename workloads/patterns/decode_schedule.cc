#include "workloads/patterns/decode_schedule.h"


#include <fmt/format.h>

#include "workloads/patterns/decode_ints.h"

namespace tessera::workloads::patterns {

using trace::Expr;
using trace::ProgramBuilder;

namespace {

using decode_ints::i64;
using decode_ints::u32;

// The schedule's register r0: the layer of a kernel-per-op kernel (its argument), the worker's
// task in a persistent kernel. The task's tile goes to kDecodeRegM and kDecodeRegN.
constexpr int kRegSchedule = 0;
constexpr int kRegM = kDecodeRegM;
constexpr int kRegN = kDecodeRegN;

// m = task mod tiles_m, n = task / tiles_m (decode_step.h: task t = n * tiles_m + m).
void set_tile_of(ProgramBuilder& p, const DecodeOp& op, const Expr& task) {
  p.set(kRegM, op.tiles_m == 1 ? Expr(0) : trace::mod(task, u32(op.tiles_m)));
  p.set(kRegN, op.tiles_m == 1 ? task : trace::div(task, u32(op.tiles_m)));
}

// Where the step-level operators go: those before the first per-layer one run before the
// layers, the others after them.
enum class Phase : std::uint8_t { kBefore, kLayers, kAfter };
Phase phase_of(const DecodeStep& step, std::size_t index) {
  if (step.ops[index].per_layer) return Phase::kLayers;
  for (std::size_t i = 0; i < index; ++i) {
    if (step.ops[i].per_layer) return Phase::kAfter;
  }
  return Phase::kBefore;
}

// After a task's stores: write back this die's L2 (a release, of the workgroup's own flag), then
// add 1 to the operator's counter, which its consumers wait for (on this rank or another).
void count_task_done(ProgramBuilder& p, const DecodeStep& step, std::size_t op_index) {
  p.release(trace::rank(), Expr(i64(step.ops.size())) + trace::wg(), 1);
  p.atomic_add(trace::rank(), i64(op_index), 1);
}

void append_kernel_per_op(trace::TraceBuilder& tb, const DecodeStep& step, const models::SystemSpec& system,
                          BspHost host) {
  std::vector<std::uint32_t> programs;
  for (std::size_t i = 0; i < step.ops.size(); ++i) {
    const DecodeOp& op = step.ops[i];
    ProgramBuilder p(op.name);
    set_tile_of(p, op, trace::wg());
    // The layer is the kernel's argument (r0).
    append_decode_task(p, step, op, {.layer = trace::reg(kRegSchedule), .depth = 0, .before_input = {}});
    if (op.counted_by_peers) count_task_done(p, step, i);
    programs.push_back(tb.program(std::move(p)));
  }
  const std::uint32_t ranks = step.shape.ranks;
  auto launch = [&](std::size_t index, std::uint64_t layer) {
    append_framework_op(tb, ranks, system, host);
    for (std::uint32_t rank = 0; rank < ranks; ++rank) {
      trace::Kernel k;
      k.name = step.ops[index].name;
      k.rank = rank;
      k.grid = step.ops[index].tasks();
      k.program = programs[index];
      k.args = {Expr(i64(layer))};
      tb.launch(std::move(k));
    }
  };
  for (std::size_t i = 0; i < step.ops.size(); ++i) {
    if (phase_of(step, i) == Phase::kBefore) launch(i, 0);
  }
  for (std::uint64_t layer = 0; layer < step.shape.model.layers; ++layer) {
    for (std::size_t i = 0; i < step.ops.size(); ++i) {
      if (phase_of(step, i) == Phase::kLayers) launch(i, layer);
    }
  }
  for (std::size_t i = 0; i < step.ops.size(); ++i) {
    if (phase_of(step, i) == Phase::kAfter) launch(i, 0);
  }
}

// The persistent kernel's program: each operator's tasks of this worker, waiting for producers.
class MegakernelWriter {
 public:
  MegakernelWriter(const DecodeStep& step, const models::SystemSpec& system, const DecodeSchedule& schedule)
      : step_(step),
        chiplet_(schedule.variant == DecodeVariant::kChipletTasks),
        workers_(decode_workers(schedule, system)),
        dies_(system.gpu.compute.num_dies),
        chunk_(system.gpu.dispatch.chunk) {}

  void write(ProgramBuilder& p) {
    for (std::size_t i = 0; i < step_.ops.size(); ++i) {
      if (phase_of(step_, i) == Phase::kBefore) tasks(p, i, /*depth=*/0, Expr(0));
    }
    p.loop(i64(step_.shape.model.layers));
    for (std::size_t i = 0; i < step_.ops.size(); ++i) {
      if (phase_of(step_, i) == Phase::kLayers) tasks(p, i, /*depth=*/1, trace::loop(0));
    }
    p.end_loop();
    for (std::size_t i = 0; i < step_.ops.size(); ++i) {
      if (phase_of(step_, i) == Phase::kAfter) tasks(p, i, /*depth=*/0, Expr(0));
    }
  }

 private:
  // This worker's die and its index among the die's workers.
  Expr die() const { return trace::mod(trace::div(trace::wg(), chunk_), dies_); }
  Expr index_on_die() const {
    Expr j = trace::div(trace::wg(), chunk_ * dies_) * i64(chunk_);
    if (chunk_ > 1) j = j + trace::mod(trace::wg(), chunk_);
    return j;
  }

  // The loop over this worker's tasks of operator `index` at `depth`; the task's body below it.
  void tasks(ProgramBuilder& p, std::size_t index, int depth, const Expr& layer) {
    const DecodeOp& op = step_.ops[index];
    if (chiplet_) {
      // Column tiles n = die + D * c; on the die, task u = c * tiles_m + m to worker u mod P.
      const std::uint64_t per_die = workers_ / dies_;
      p.set(kRegSchedule, Expr(i64(op.tiles_n - 1 + dies_)) - die());
      p.set(kRegSchedule, trace::div(trace::reg(kRegSchedule), dies_));  // this die's column tiles
      p.set(kRegSchedule, trace::reg(kRegSchedule) * i64(op.tiles_m) + Expr(i64(per_die - 1)) - index_on_die());
      p.loop(trace::div(trace::reg(kRegSchedule), u32(per_die)));
      p.set(kRegSchedule, index_on_die() + trace::loop(depth) * i64(per_die));
      p.set(kRegM, op.tiles_m == 1 ? Expr(0) : trace::mod(trace::reg(kRegSchedule), u32(op.tiles_m)));
      p.set(kRegN, trace::div(trace::reg(kRegSchedule), u32(op.tiles_m)) * i64(dies_) + die());
    } else {
      // Task t to worker t mod W.
      p.set(kRegSchedule, Expr(i64(op.tasks() + workers_ - 1)) - trace::wg());
      p.loop(trace::div(trace::reg(kRegSchedule), u32(workers_)));
      p.set(kRegSchedule, trace::wg() + trace::loop(depth) * i64(workers_));
      set_tile_of(p, op, trace::reg(kRegSchedule));
    }
    const DecodeTaskContext ctx{
        .layer = layer,
        .depth = depth + 1,
        .before_input = [this, &op, &layer](ProgramBuilder& program, std::uint32_t buffer, const Expr& offset,
                                            const Expr& bytes) { wait_for_producers(program, op, layer, buffer, offset, bytes); }};
    append_decode_task(p, step_, op, ctx);
    count_task_done(p, step_, index);
    p.end_loop();
  }

  void wait_for_producers(ProgramBuilder& p, const DecodeOp& op, const Expr& layer, std::uint32_t buffer,
                          const Expr& offset, const Expr& bytes) const {
    for (std::size_t d = 0; d < op.deps.size(); ++d) {
      const DecodeDep& dep = op.deps[d];
      const DecodeOp& producer = step_.ops[dep.op];
      const std::int64_t per_run = i64(producer.tasks());
      Expr done(per_run);  // a step-level producer runs once
      if (producer.per_layer && op.per_layer) {
        done = layer * per_run + Expr(dep.previous_layer ? 0 : per_run);
      } else if (producer.per_layer) {
        done = Expr(per_run * step_.shape.model.layers);
      }
      const bool last = d + 1 == op.deps.size();
      p.wait(trace::rank(), i64(dep.op), models::sync::Compare::kGe, done, last ? buffer : trace::kNoBuffer,
             last ? offset : Expr(0), last ? bytes : Expr(0));
    }
  }

  const DecodeStep& step_;
  bool chiplet_;
  std::uint64_t workers_;
  std::uint32_t dies_;
  std::uint32_t chunk_;
};

}  // namespace

const std::vector<std::pair<std::string, DecodeVariant>>& decode_variant_choices() {
  static const std::vector<std::pair<std::string, DecodeVariant>> names{
      {"kernel_per_op", DecodeVariant::kKernelPerOp},
      {"megakernel", DecodeVariant::kMegakernel},
      {"chiplet_tasks", DecodeVariant::kChipletTasks}};
  return names;
}

std::uint64_t decode_workers(const DecodeSchedule& schedule, const models::SystemSpec& system) {
  const auto& c = system.gpu.compute;
  return std::uint64_t{c.num_dies} * c.compute_units_per_die * schedule.workers_per_cu;
}

std::optional<ParamProblem> schedule_problem(const DecodeSchedule& schedule, const models::SystemSpec& system) {
  if (schedule.host == BspHost::kPytorch && system.host.framework_op_ps == 0) {
    // A framework that costs nothing is host: none; a silent zero would pass for a measurement.
    return ParamProblem{"host", fmt::format("host: pytorch needs the system's host.framework_op, which {} leaves at "
                                            "0 s (not measured for it): give it (e.g. --set "
                                            "system.host.framework_op=15us) or use host: none",
                                            system.name)};
  }
  if (schedule.variant == DecodeVariant::kKernelPerOp) return std::nullopt;
  const auto& c = system.gpu.compute;
  if (schedule.workers_per_cu > c.workgroup_slots_per_cu) {
    return ParamProblem{"workers_per_cu", fmt::format("{} workers per CU but a CU of '{}' holds {} workgroups: the "
                                                      "persistent kernel's workers must all be resident",
                                                      schedule.workers_per_cu, system.name, c.workgroup_slots_per_cu)};
  }
  if (schedule.variant == DecodeVariant::kChipletTasks &&
      c.compute_units_per_die * schedule.workers_per_cu % system.gpu.dispatch.chunk != 0) {
    return ParamProblem{"variant", fmt::format("chiplet_tasks needs each die's workers ({}) to be a multiple of the "
                                               "dispatch chunk ({}) so that a worker knows its die",
                                               c.compute_units_per_die * schedule.workers_per_cu,
                                               system.gpu.dispatch.chunk)};
  }
  return std::nullopt;
}

void append_decode_schedule(trace::TraceBuilder& tb, const DecodeStep& step, const models::SystemSpec& system,
                            const DecodeSchedule& schedule) {
  if (schedule.variant == DecodeVariant::kKernelPerOp) {
    append_kernel_per_op(tb, step, system, schedule.host);
    return;
  }
  ProgramBuilder p("decode_megakernel");
  MegakernelWriter(step, system, schedule).write(p);
  const std::uint32_t program = tb.program(std::move(p));
  append_framework_op(tb, step.shape.ranks, system, schedule.host);
  for (std::uint32_t rank = 0; rank < step.shape.ranks; ++rank) {
    trace::Kernel k;
    k.name = "decode_megakernel";
    k.rank = rank;
    k.grid = decode_workers(schedule, system);
    k.program = program;
    tb.launch(std::move(k));
  }
}

}  // namespace tessera::workloads::patterns
