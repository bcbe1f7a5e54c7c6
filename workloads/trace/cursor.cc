#include "workloads/trace/cursor.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessera::workloads::trace {

CompiledProgram::CompiledProgram(const Program& p) : program(&p), loop_end(p.instrs.size(), 0) {
  std::vector<std::uint32_t> open;
  for (std::uint32_t i = 0; i < p.instrs.size(); ++i) {
    if (p.instrs[i].kind == OpKind::kLoop) open.push_back(i);
    if (p.instrs[i].kind == OpKind::kEndLoop) {
      if (open.empty()) throw std::invalid_argument(fmt::format("program '{}': end_loop without loop", p.name));
      loop_end[open.back()] = i;
      open.pop_back();
    }
  }
  if (!open.empty()) throw std::invalid_argument(fmt::format("program '{}': loop without end_loop", p.name));
}

Cursor::Cursor(const CompiledProgram& program, const Kernel& kernel, std::uint64_t wg, std::uint32_t ranks)
    : program_(&program) {
  vars_[static_cast<int>(Var::kWg)] = static_cast<std::int64_t>(wg);
  vars_[static_cast<int>(Var::kNumWg)] = static_cast<std::int64_t>(kernel.grid);
  vars_[static_cast<int>(Var::kRank)] = kernel.rank;
  vars_[static_cast<int>(Var::kNumRanks)] = ranks;
  for (std::size_t i = 0; i < kernel.args.size(); ++i) {
    try {
      vars_[static_cast<int>(Var::kReg0) + i] = kernel.args[i].eval(vars_);
    } catch (const std::out_of_range& e) {
      throw std::out_of_range(fmt::format("kernel argument r{}: {}", i, e.what()));
    }
  }
}

bool Cursor::next(Op& out) {
  try {
    return step(out);
  } catch (const std::out_of_range& e) {
    const Instr& in = program_->program->instrs[pc_];
    throw std::out_of_range(fmt::format("program '{}' instruction {} ({}): {}", program_->program->name, pc_,
                                        op_name(in.kind), e.what()));
  }
}

bool Cursor::step(Op& out) {
  const std::vector<Instr>& instrs = program_->program->instrs;
  while (pc_ < instrs.size()) {
    const Instr& in = instrs[pc_];
    switch (in.kind) {
      case OpKind::kLoop: {
        const std::int64_t count = in.a.eval(vars_);
        if (count < 0) {
          throw std::out_of_range(fmt::format("loop count {} is negative", count));
        }
        if (count == 0) {
          pc_ = program_->loop_end[pc_] + 1;
          break;
        }
        frames_[depth_] = Frame{pc_ + 1, count - 1};
        vars_[static_cast<int>(Var::kLoop0) + depth_] = 0;
        ++depth_;
        ++pc_;
        break;
      }
      case OpKind::kEndLoop: {
        Frame& f = frames_[depth_ - 1];
        if (f.remaining > 0) {
          --f.remaining;
          ++vars_[static_cast<int>(Var::kLoop0) + depth_ - 1];
          pc_ = f.body;
        } else {
          --depth_;
          ++pc_;
        }
        break;
      }
      case OpKind::kSet:
        vars_[static_cast<int>(Var::kReg0) + in.target] = in.a.eval(vars_);
        ++pc_;
        break;
      default:
        out.kind = in.kind;
        out.dtype = in.dtype;
        out.compare = in.compare;
        out.scope = in.scope;
        out.buffer = in.buffer;
        out.slot = in.target;
        out.a = in.a.eval(vars_);
        out.b = in.b.eval(vars_);
        out.c = in.c.eval(vars_);
        out.d = in.d.eval(vars_);
        out.e = in.e.eval(vars_);
        out.instr = pc_;
        ++pc_;
        return true;
    }
  }
  return false;
}

}  // namespace tessera::workloads::trace
