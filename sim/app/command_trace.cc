// tessera trace inspect FILE [--json] | tessera trace convert IN OUT
#include <algorithm>
#include <array>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/io/output_file.h"
#include "sim/app/exit_codes.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"
#include "sim/config/suggest.h"
#include "sim/config/units.h"
#include "workloads/trace/cursor.h"
#include "workloads/trace/trace.h"
#include "workloads/trace/trace_error.h"
#include "workloads/trace/trace_file.h"

namespace po = boost::program_options;

namespace tessera::app {
namespace {

using json = nlohmann::ordered_json;
namespace wt = workloads::trace;

// The walk steps every workgroup through its program; beyond this many instruction steps it
// would take minutes, so it is skipped (estimated up front) or stopped (loops whose counts are
// expressions can only be counted by walking).
constexpr std::uint64_t kWalkStepLimit = 50'000'000;
// Text output lists at most this many kernels and host commands per rank (--json: all).
constexpr std::size_t kMaxListed = 64;

constexpr std::array<wt::OpKind, 12> kCountedOps = {wt::OpKind::kCompute,    wt::OpKind::kLoad,          wt::OpKind::kStore,
                                                    wt::OpKind::kAtomicAdd,  wt::OpKind::kAtomicXchg,    wt::OpKind::kRelease,
                                                    wt::OpKind::kWait,       wt::OpKind::kBarrier,       wt::OpKind::kAtomicAddRange,
                                                    wt::OpKind::kLoadAsync,  wt::OpKind::kWaitLoad,        wt::OpKind::kDelay};

std::string_view host_op_text(wt::HostOp op) {
  switch (op) {
    case wt::HostOp::kLaunch: return "launch";
    case wt::HostOp::kSync: return "sync";
    case wt::HostOp::kRankBarrier: return "rank_barrier";
    case wt::HostOp::kDelay: return "delay";
  }
  return "?";
}

// Instruction steps one workgroup takes, with constant loop counts multiplied in (a loop whose
// count is an expression counts once: the walk's own limit catches those).
std::uint64_t estimated_steps(const wt::Program& p) {
  std::vector<std::uint64_t> factor = {1};
  std::uint64_t steps = 0;
  for (const wt::Instr& in : p.instrs) {
    steps = std::min(steps + factor.back(), kWalkStepLimit + 1);
    if (in.kind == wt::OpKind::kLoop) {
      const std::uint64_t count = in.a.is_constant() ? static_cast<std::uint64_t>(std::max<std::int64_t>(in.a.constant, 0)) : 1;
      factor.push_back(std::min(factor.back() * std::max<std::uint64_t>(count, 1), kWalkStepLimit + 1));
    } else if (in.kind == wt::OpKind::kEndLoop && factor.size() > 1) {
      factor.pop_back();
    }
  }
  return steps;
}

struct Traffic {
  std::uint64_t loaded_bytes = 0;
  std::uint64_t stored_bytes = 0;
};

struct Walk {
  bool done = false;
  std::string skipped;  // why not done
  std::uint64_t estimated_steps = 0;
  std::uint64_t ops = 0;
  std::map<wt::OpKind, std::uint64_t> ops_by_kind;
  double flops = 0;
  std::map<std::pair<std::int64_t, std::int64_t>, Traffic> traffic;  // (rank, owner rank) -> bytes
  std::uint64_t bad_owner_ops = 0;  // loads/stores whose owner rank is not a rank of the trace
  std::uint64_t negative_size_ops = 0;
};

Walk walk(const wt::Trace& t, const std::string& file) {
  Walk w;
  for (const wt::Kernel& k : t.kernels) {
    const std::uint64_t per_wg = estimated_steps(t.programs[k.program]);
    const std::uint64_t grid = std::min<std::uint64_t>(k.grid, kWalkStepLimit + 1);
    w.estimated_steps = std::min(w.estimated_steps + grid * per_wg, kWalkStepLimit + 1);
  }
  if (w.estimated_steps > kWalkStepLimit) {
    w.skipped = fmt::format("the walk would take more than {} million instruction steps", kWalkStepLimit / 1'000'000);
    return w;
  }
  std::vector<wt::CompiledProgram> compiled;
  compiled.reserve(t.programs.size());
  for (const wt::Program& p : t.programs) compiled.emplace_back(p);
  for (const wt::Kernel& k : t.kernels) {
    for (std::uint64_t wg = 0; wg < k.grid; ++wg) {
      const auto located = [&](const std::out_of_range& e) {
        return wt::TraceError::in_file(file, fmt::format("kernel '{}' workgroup {}: {}", k.name, wg, e.what()));
      };
      wt::Cursor cursor;
      try {
        cursor = wt::Cursor(compiled[k.program], k, wg, t.ranks);
      } catch (const std::out_of_range& e) {
        throw located(e);
      }
      wt::Op op;
      for (;;) {
        try {
          if (!cursor.next(op)) break;
        } catch (const std::out_of_range& e) {
          throw located(e);
        }
        if (++w.ops > kWalkStepLimit) {
          w.skipped = fmt::format("stopped after {} million operations (loop counts given by expressions)", kWalkStepLimit / 1'000'000);
          return w;
        }
        ++w.ops_by_kind[op.kind];
        if (op.kind == wt::OpKind::kCompute) w.flops += static_cast<double>(op.flops());
        // atomic_add_range writes its bytes at the owner's memory side: it counts as stored traffic.
        const bool stores = op.kind == wt::OpKind::kStore || op.kind == wt::OpKind::kAtomicAddRange;
        if (!wt::is_load(op.kind) && !stores) continue;
        if (op.rank() < 0 || op.rank() >= static_cast<std::int64_t>(t.ranks)) ++w.bad_owner_ops;
        if (op.bytes() < 0) {
          ++w.negative_size_ops;
          continue;
        }
        Traffic& traffic = w.traffic[{k.rank, op.rank()}];
        (wt::is_load(op.kind) ? traffic.loaded_bytes : traffic.stored_bytes) += static_cast<std::uint64_t>(op.bytes());
      }
    }
  }
  w.done = true;
  return w;
}

json inspect_json(const wt::Trace& t, const std::string& file, wt::TraceForm form, const Walk& w) {
  json j;
  j["file"] = file;
  j["form"] = form == wt::TraceForm::kBinary ? "binary" : "text";
  j["version"] = t.version;
  j["ranks"] = t.ranks;
  j["buffers"] = json::array();
  for (const wt::Buffer& b : t.buffers) {
    j["buffers"].push_back({{"name", b.name}, {"bytes", b.bytes}, {"coherence", wt::coherence_name(b.coherence)}});
  }
  j["programs"] = json::array();
  for (const wt::Program& p : t.programs) j["programs"].push_back({{"name", p.name}, {"instructions", p.instrs.size()}});
  j["kernels"] = json::array();
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    const wt::Kernel& k = t.kernels[i];
    json args = json::array();
    for (const wt::Expr& e : k.args) args.push_back(wt::to_string(e));
    j["kernels"].push_back({{"index", i},
                            {"name", k.name},
                            {"rank", k.rank},
                            {"stream", k.stream},
                            {"grid", k.grid},
                            {"program", t.programs[k.program].name},
                            {"args", std::move(args)},
                            {"cu_first", k.cu_first},
                            {"cu_count", k.cu_count},
                            {"collective", k.collective}});
  }
  j["host"] = json::array();
  for (const auto& commands : t.host) {
    json list = json::array();
    for (const wt::HostCommand& c : commands) {
      json o = {{"op", host_op_text(c.op)}};
      if (c.op == wt::HostOp::kLaunch) o["kernel"] = c.kernel;
      if (c.op == wt::HostOp::kDelay) o["delay_ps"] = c.delay_ps;
      list.push_back(std::move(o));
    }
    j["host"].push_back(std::move(list));
  }
  const wt::TraceStats s = wt::stats_of(t);
  j["totals"] = {{"instructions", s.instructions}, {"workgroups", s.workgroups}, {"buffer_bytes_per_rank", s.buffer_bytes_per_rank}};
  json walk = {{"done", w.done}, {"estimated_steps", w.estimated_steps}};
  if (!w.done) {
    walk["skipped"] = w.skipped;
  } else {
    json ops = json::object();
    for (wt::OpKind kind : kCountedOps) {
      const auto it = w.ops_by_kind.find(kind);
      ops[std::string(wt::op_name(kind))] = it == w.ops_by_kind.end() ? 0 : it->second;
    }
    walk["ops"] = std::move(ops);
    walk["flops"] = w.flops;
    json traffic = json::array();
    for (const auto& [pair, bytes] : w.traffic) {
      traffic.push_back({{"rank", pair.first}, {"owner", pair.second}, {"loaded_bytes", bytes.loaded_bytes}, {"stored_bytes", bytes.stored_bytes}});
    }
    walk["traffic"] = std::move(traffic);
    walk["bad_owner_ops"] = w.bad_owner_ops;
    walk["negative_size_ops"] = w.negative_size_ops;
  }
  j["walk"] = std::move(walk);
  return j;
}

std::string inspect_text(const wt::Trace& t, const std::string& file, wt::TraceForm form, const Walk& w) {
  using sim::config::format_bytes;
  std::string out = fmt::format("{}: {} trace, format version {}, {} rank(s)\n", file,
                                form == wt::TraceForm::kBinary ? "binary" : "text", t.version, t.ranks);
  const wt::TraceStats s = wt::stats_of(t);

  out += fmt::format("\nbuffers ({}, sizes per rank)\n", t.buffers.size());
  TextTable buffers({"buffer", "size", "bytes", "coherence"});
  for (const wt::Buffer& b : t.buffers) {
    buffers.add_row({b.name, format_bytes(b.bytes), std::to_string(b.bytes), std::string(wt::coherence_name(b.coherence))});
  }
  out += buffers.render();

  out += fmt::format("\nprograms ({})\n", t.programs.size());
  TextTable programs({"program", "instructions"});
  for (const wt::Program& p : t.programs) programs.add_row({p.name, std::to_string(p.instrs.size())});
  out += programs.render();

  out += fmt::format("\nkernels ({})\n", t.kernels.size());
  for (std::uint32_t r = 0; r < t.ranks; ++r) {
    TextTable kernels({"index", "kernel", "stream", "grid (workgroups)", "program", "CUs", "collective"});
    std::size_t listed = 0;
    std::size_t on_rank = 0;
    for (std::size_t i = 0; i < t.kernels.size(); ++i) {
      const wt::Kernel& k = t.kernels[i];
      if (k.rank != r) continue;
      if (++on_rank > kMaxListed) continue;
      ++listed;
      const std::string cus = k.cu_count == 0 ? "all" : fmt::format("{}..{}", k.cu_first, k.cu_first + k.cu_count - 1);
      kernels.add_row({std::to_string(i), k.name, std::to_string(k.stream), std::to_string(k.grid), t.programs[k.program].name, cus,
                       k.collective ? "yes" : "no"});
    }
    out += fmt::format("rank {}: {} kernel(s)\n", r, on_rank);
    if (on_rank > 0) out += kernels.render();
    if (on_rank > listed) out += fmt::format("... {} more (--json lists all)\n", on_rank - listed);
  }

  out += "\nhost commands\n";
  for (std::uint32_t r = 0; r < t.host.size(); ++r) {
    std::string line;
    for (std::size_t i = 0; i < t.host[r].size() && i < kMaxListed; ++i) {
      const wt::HostCommand& c = t.host[r][i];
      line += line.empty() ? "" : ", ";
      if (c.op == wt::HostOp::kLaunch) {
        line += fmt::format("launch {} ({})", c.kernel, t.kernels[c.kernel].name);
      } else if (c.op == wt::HostOp::kDelay) {
        line += fmt::format("delay {} ps", c.delay_ps);
      } else {
        line += host_op_text(c.op);
      }
    }
    if (t.host[r].size() > kMaxListed) line += fmt::format(", ... {} more", t.host[r].size() - kMaxListed);
    out += fmt::format("rank {}: {}\n", r, line.empty() ? "(none)" : line);
  }

  out += "\ntotals\n";
  TextTable totals({"quantity", "value"});
  totals.add_row({"instructions (all programs)", std::to_string(s.instructions)});
  totals.add_row({"workgroups (all kernels)", std::to_string(s.workgroups)});
  totals.add_row({"buffer memory per rank", format_bytes(s.buffer_bytes_per_rank)});
  out += totals.render();

  out += "\noperations executed (every workgroup walked)\n";
  if (!w.done) return out + fmt::format("walk skipped: {}\n", w.skipped);
  TextTable ops({"op", "count"});
  for (wt::OpKind kind : kCountedOps) {
    const auto it = w.ops_by_kind.find(kind);
    ops.add_row({std::string(wt::op_name(kind)), std::to_string(it == w.ops_by_kind.end() ? 0 : it->second)});
  }
  out += ops.render();
  out += fmt::format("compute: {:.4g} flop\n", w.flops);
  out += "\nmemory traffic (rank -> owner rank of the buffer copy)\n";
  TextTable traffic({"rank", "owner", "loaded", "stored"});
  for (const auto& [pair, bytes] : w.traffic) {
    traffic.add_row({std::to_string(pair.first), std::to_string(pair.second), format_bytes(bytes.loaded_bytes), format_bytes(bytes.stored_bytes)});
  }
  out += w.traffic.empty() ? "(no loads or stores)\n" : traffic.render();
  if (w.bad_owner_ops > 0) {
    out += fmt::format("warning: {} load/store(s) address an owner rank outside 0..{}\n", w.bad_owner_ops, t.ranks - 1);
  }
  if (w.negative_size_ops > 0) out += fmt::format("warning: {} load/store(s) have a negative size\n", w.negative_size_ops);
  return out;
}

int trace_inspect(const Args& args) {
  po::options_description opts(
      "tessera trace inspect FILE [options]\n\nSummarises a trace (text or binary form): buffers, programs, kernels per rank, "
      "host commands,\ntotals, and, by walking every workgroup, the operations executed and the bytes each rank\nloads from "
      "and stores to each rank's memory (skipped beyond 50 million instruction steps).\n\nOptions");
  opts.add_options()("help,h", "show this help")("json", "print one JSON object")(
      "file", po::value<std::string>(), "the trace (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("file", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (!vm.count("file")) throw UsageError("trace inspect: which trace? (tessera trace inspect FILE)");
  const std::string file = vm["file"].as<std::string>();
  const wt::Trace trace = wt::load_trace(file);
  const wt::TraceForm form = wt::form_of_file(file);
  const Walk w = walk(trace, file);
  if (vm.count("json")) {
    std::cout << inspect_json(trace, file, form, w).dump(2) << "\n";
  } else {
    std::cout << inspect_text(trace, file, form, w);
  }
  return kExitOk;
}

int trace_convert(const Args& args) {
  po::options_description opts(
      "tessera trace convert IN OUT [options]\n\nReads a trace in either form and writes it in the form OUT's extension "
      "names:\n.jsonl (text, JSON Lines) or .tsrt (binary). OUT is replaced atomically.\n\nOptions");
  opts.add_options()("help,h", "show this help")("in", po::value<std::string>(), "the trace to read (first positional argument)")(
      "out", po::value<std::string>(), "the file to write (second positional argument)");
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (!vm.count("in") || !vm.count("out")) throw UsageError("trace convert: IN and OUT are needed (tessera trace convert IN OUT)");
  const std::string in = vm["in"].as<std::string>();
  const std::string out = vm["out"].as<std::string>();
  const wt::TraceForm form = wt::form_of_path(out);  // before reading: a bad name fails at once
  sim::io::check_output_file(out, "trace convert OUT");
  const wt::Trace trace = wt::load_trace(in);
  wt::save_trace(trace, out, form);
  std::cout << fmt::format("wrote {} ({} form)\n", out, form == wt::TraceForm::kBinary ? "binary" : "text");
  return kExitOk;
}

constexpr const char* kTraceUsage = R"(tessera trace ACTION [options]

Actions:
  inspect FILE      summarise a trace (text .jsonl or binary .tsrt; the form is read from the content)
  convert IN OUT    rewrite a trace in the form OUT's extension names (.jsonl text, .tsrt binary)

tessera trace ACTION --help shows an action's options; docs/trace-format.md describes the format.
)";

}  // namespace

int command_trace(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kTraceUsage;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "inspect") return trace_inspect(rest);
  if (args[0] == "convert") return trace_convert(rest);
  const std::vector<std::string> actions = {"inspect", "convert"};
  const auto near = sim::config::nearest(args[0], actions);
  throw UsageError(near ? fmt::format("unknown trace action '{}'; did you mean '{}'?", args[0], *near)
                        : fmt::format("unknown trace action '{}' (actions: inspect, convert)", args[0]));
}

}  // namespace tessera::app
