// tessera run [CONFIG] [--set K=V]... [--out DIR] [--json] [--seed S] [--max-events N] [--dump-trace FILE]
#include <filesystem>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "workloads/trace/trace_file.h"
#include "sim/app/atomic_file.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/run_config_loader.h"
#include "sim/app/run_workload.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"

namespace po = boost::program_options;

namespace tessera::app {
namespace {

// Per kernel: where it ran and when, in launch order; long traces list the first kernels only.
std::string render_kernels(const nlohmann::json& kernels) {
  constexpr std::size_t kMaxRows = 40;
  TextTable t({"kernel", "GPU", "stream", "workgroups", "launch (ns)", "start (ns)", "end (ns)"});
  std::size_t rows = 0;
  for (const auto& k : kernels) {
    if (rows++ == kMaxRows) break;
    t.add_row({k["name"].get<std::string>(), std::to_string(k["rank"].get<std::uint32_t>()),
               std::to_string(k["stream"].get<std::uint32_t>()), std::to_string(k["grid"].get<std::uint64_t>()),
               fmt::format("{:.1f}", k["launch_ns"].get<double>()), fmt::format("{:.1f}", k["start_ns"].get<double>()),
               fmt::format("{:.1f}", k["end_ns"].get<double>())});
  }
  std::string out = t.render();
  if (kernels.size() > kMaxRows) out += fmt::format("({} more kernels in --json)\n", kernels.size() - kMaxRows);
  return out;
}

std::string render_text(const nlohmann::json& s) {
  TextTable t({"quantity", "value", "unit"});
  t.add_row({"system", s["system"].get<std::string>(), ""});
  t.add_row({"workload", s["workload"].get<std::string>(), ""});
  t.add_row({"seed", std::to_string(s["seed"].get<std::uint64_t>()), ""});
  if (s.contains("op")) t.add_row({"op", s["op"].get<std::string>(), ""});
  if (s.contains("variant")) t.add_row({"variant", s["variant"].get<std::string>(), ""});
  t.add_row({"simulated time", fmt::format("{:.3f}", s["makespan_ns"].get<double>()), "ns"});
  if (s.contains("bandwidth_GBps")) {
    t.add_row({"bandwidth per GPU", fmt::format("{:.2f}", s["bandwidth_GBps"].get<double>()), "GB/s"});
  }
  if (s.contains("latency_ns")) t.add_row({"latency", fmt::format("{:.3f}", s["latency_ns"].get<double>()), "ns"});
  for (const auto& [key, label] : {std::pair{"l2_hit_rate", "L2 hit rate"}, std::pair{"mall_hit_rate", "MALL hit rate"}}) {
    if (s.contains(key) && s[key].is_number()) t.add_row({label, fmt::format("{:.1f}", 100.0 * s[key].get<double>()), "%"});
  }
  if (s.contains("link_class_bytes")) {
    for (const auto& [link_class, bytes] : s["link_class_bytes"].items()) {
      t.add_row({"bytes over " + link_class, fmt::format("{:.3f}", bytes.get<double>() / (1 << 20)), "MiB"});
    }
  }
  t.add_row({"events", std::to_string(s["events"].get<std::uint64_t>()), "events"});
  t.add_row({"wall time", fmt::format("{:.3f}", s["wall_s"].get<double>()), "s"});
  t.add_row({"event rate", fmt::format("{:.2f}", s["wall_events_per_s"].get<double>() / 1e6), "M events/s"});
  std::string out = t.render();
  if (s.contains("kernels") && !s["kernels"].empty()) out += "\n" + render_kernels(s["kernels"]);
  if (!s["complete"].get<bool>()) out += "note: stopped by --max-events; the result is incomplete\n";
  if (!s["zero_latency_keys"].empty()) {
    out += fmt::format("note: latencies at 0 ps in this system file (uncalibrated, see docs/hardware-sources.md): {}\n",
                       fmt::join(s["zero_latency_keys"].get<std::vector<std::string>>(), ", "));
  }
  return out;
}

}  // namespace

int command_run(const Args& args) {
  po::options_description opts("tessera run [CONFIG] [options]\n\nRuns one workload on one system. Without CONFIG, runs the embedded default.\n\nOptions");
  std::vector<std::string> sets;
  std::string out_dir;
  opts.add_options()("help,h", "show this help")
      ("set", po::value<std::vector<std::string>>(&sets)->composing(), "override a config key: --set key.path=value (repeatable)")
      ("out", po::value<std::string>(&out_dir), "write summary.json into this folder")
      ("json", "print one JSON object on stdout instead of the table")
      ("seed", po::value<std::uint64_t>(), "seed of every random draw (overrides the config's seed)")
      ("max-events", po::value<std::uint64_t>(), "stop after this many events; the result is marked incomplete")
      ("dump-trace", po::value<std::string>(), "also write the workload's tile-level trace to FILE (.jsonl text, .tsrt binary)")
      ("config", po::value<std::string>(), "the run config (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  // Flags are config overrides with the same checks (and the flag named in errors).
  if (vm.count("seed")) sets.push_back(fmt::format("seed={}", vm["seed"].as<std::uint64_t>()));
  if (vm.count("max-events")) sets.push_back(fmt::format("max_events={}", vm["max-events"].as<std::uint64_t>()));
  std::optional<std::string> config;
  if (vm.count("config")) config = vm["config"].as<std::string>();

  RunSpec spec = load_run_spec(config, sets);
  if (auto* phold = std::get_if<bench::PholdParams>(&spec.workload); phold && spec.options.max_events) {
    phold->max_events = *spec.options.max_events;
  }
  if (vm.count("dump-trace")) {
    const auto trace = trace_of(spec);
    if (!trace) throw UsageError(fmt::format("--dump-trace: workload kind '{}' has no tile-level trace", spec.workload_kind));
    workloads::trace::save_trace(*trace, vm["dump-trace"].as<std::string>());
  }
  const nlohmann::json summary = run_workload(spec);

  if (!out_dir.empty()) write_file_atomically(std::filesystem::path(out_dir) / "summary.json", summary.dump(2) + "\n");
  if (vm.count("json")) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::cout << render_text(summary);
  }
  return kExitOk;
}

}  // namespace tessera::app
