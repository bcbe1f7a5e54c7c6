// tessera run [CONFIG] [--set K=V]... [--out DIR] [--json] [--seed S] [--max-events N]
#include <filesystem>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "bench/phold/phold_engine.h"
#include "workloads/microbench/run_microbench.h"
#include "sim/app/atomic_file.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/run_config_loader.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"
#include "sim/app/version.h"

namespace po = boost::program_options;

namespace tessera::app {
namespace {

nlohmann::json run_kind(const RunSpec&, const bench::PholdParams& phold) {
  const bench::PholdResult r = bench::run_phold_engine(phold);
  return {{"complete", r.complete},
          {"makespan_ns", static_cast<double>(r.final_time_ps) / 1e3},
          {"final_time_ps", r.final_time_ps},
          {"events", r.events},
          {"wall_s", r.wall_s}};
}

nlohmann::json run_kind(const RunSpec& spec, const workloads::microbench::MicrobenchParams& params) {
  workloads::microbench::RunLimits limits;
  if (spec.options.max_events) limits.max_events = *spec.options.max_events;
  return workloads::microbench::to_json(workloads::microbench::run_microbench(spec.system, params, limits));
}

// Runs the workload and returns the summary: every field a report or a script reads.
nlohmann::json run_workload(const RunSpec& spec) {
  nlohmann::json s;
  s["tessera_version"] = kVersion;
  s["system"] = spec.system.name;
  s["workload"] = spec.workload_kind;
  s["seed"] = spec.options.seed;
  s.update(std::visit([&spec](const auto& params) { return run_kind(spec, params); }, spec.workload));
  s["zero_latency_keys"] = models::zero_latency_keys(spec.system);
  const double wall_s = s["wall_s"].get<double>();
  s["wall_events_per_s"] = wall_s > 0 ? static_cast<double>(s["events"].get<std::uint64_t>()) / wall_s : 0.0;
  return s;
}

std::string render_text(const nlohmann::json& s) {
  TextTable t({"quantity", "value", "unit"});
  t.add_row({"system", s["system"].get<std::string>(), ""});
  t.add_row({"workload", s["workload"].get<std::string>(), ""});
  t.add_row({"seed", std::to_string(s["seed"].get<std::uint64_t>()), ""});
  if (s.contains("op")) t.add_row({"op", s["op"].get<std::string>(), ""});
  t.add_row({"simulated time", fmt::format("{:.3f}", s["makespan_ns"].get<double>()), "ns"});
  if (s.contains("bandwidth_GBps")) {
    t.add_row({"bandwidth per GPU", fmt::format("{:.2f}", s["bandwidth_GBps"].get<double>()), "GB/s"});
  }
  if (s.contains("latency_ns")) t.add_row({"latency", fmt::format("{:.3f}", s["latency_ns"].get<double>()), "ns"});
  t.add_row({"events", std::to_string(s["events"].get<std::uint64_t>()), "events"});
  t.add_row({"wall time", fmt::format("{:.3f}", s["wall_s"].get<double>()), "s"});
  t.add_row({"event rate", fmt::format("{:.2f}", s["wall_events_per_s"].get<double>() / 1e6), "M events/s"});
  std::string out = t.render();
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
