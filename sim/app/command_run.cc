// tessera run [CONFIG] [--set K=V]... [--out DIR] [--json] [--ablate WHAT]... [--seed S] [--max-events N]
//             [--max-wall DURATION] [--dump-trace FILE]
#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/app/atomic_file.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/run/run_config_loader.h"
#include "sim/app/max_wall_flag.h"
#include "sim/app/run/stop_message.h"
#include "sim/app/run/run_workload.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"
#include "sim/app/report/report_html.h"
#include "sim/app/report/taxes_csv.h"
#include "sim/app/report/timeline_json.h"
#include "workloads/trace/trace_file.h"

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

// The time categories in report order: work parts, then the taxes (docs/taxes.md).
constexpr std::array<std::pair<const char*, const char*>, 7> kCategories{{{"work_ns", "compute"},
                                                                         {"work_ns", "memory"},
                                                                         {"work_ns", "communication"},
                                                                         {"work_ns", "idle"},
                                                                         {"taxes_ns", "bulk_synchronous"},
                                                                         {"taxes_ns", "inter_kernel_locality"},
                                                                         {"taxes_ns", "launch_overhead"}}};

double category_ns(const nlohmann::json& s, const std::pair<const char*, const char*>& c) {
  return s.at(c.first).at(c.second).get<double>();
}

// Where the time went, along the critical GPU: each part in us and as a share of the makespan.
std::string render_taxes(const nlohmann::json& s) {
  const double makespan = s["makespan_ns"].get<double>();
  TextTable t({"where the time goes", "kind", "time (us)", "share (%)"});
  for (const auto& c : kCategories) {
    const double ns = category_ns(s, c);
    t.add_row({c.second, std::string(c.first) == "work_ns" ? "work" : "tax", fmt::format("{:.3f}", ns / 1e3),
               fmt::format("{:.1f}", makespan > 0 ? 100.0 * ns / makespan : 0.0)});
  }
  t.add_row({"makespan", "", fmt::format("{:.3f}", makespan / 1e3), "100.0"});
  return fmt::format("Critical GPU: {} (parts add up to the makespan; docs/taxes.md)\n", s["critical_rank"].get<int>()) +
         t.render();
}

std::string render_text(const nlohmann::json& s, const run::RunOptions& options) {
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
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "\n" + std::string here.
  if (s.contains("taxes_ns")) out.append("\n").append(render_taxes(s));
  if (s.contains("kernels") && !s["kernels"].empty()) out.append("\n").append(render_kernels(s["kernels"]));
  if (const auto stopped = run::stop_message(s, options)) out += "note: " + *stopped + "\n";
  if (!s["zero_latency_keys"].empty()) {
    out += fmt::format("note: latencies at 0 ps in this system file (uncalibrated, see docs/hardware-sources.md): {}\n",
                       fmt::join(s["zero_latency_keys"].get<std::vector<std::string>>(), ", "));
  }
  return out;
}

// Runs side by side in the embedded default: the three forms of ag_gemm.
constexpr std::array<const char*, 3> kDefaultVariants{"bsp", "pull", "push"};

// What `--ablate` idealises: launch (launch latency, dispatch and teardown take no time),
// locality (intermediates cost nothing: their accesses and the end-of-kernel write-back are
// skipped), sync (flag and barrier atomics take no time). The run is repeated with it.
struct Ablation {
  std::string name;
  std::string tax;  // the tax it should remove
  std::vector<std::string> sets;
  bool ideal_locality = false;
};

Ablation ablation_of(const std::string& name) {
  if (name == "launch") {
    return {name, "launch_overhead",
            {"system.gpu.dispatch.kernel_launch_latency=0 ps", "system.gpu.dispatch.workgroup_dispatch=0 ps",
             "system.gpu.dispatch.kernel_teardown=0 ps"},
            false};
  }
  if (name == "locality") return {name, "inter_kernel_locality", {}, true};
  if (name == "sync") {
    return {name, "bulk_synchronous", {"system.gpu.atomics.local_latency=0 ps", "system.gpu.atomics.remote_latency=0 ps"},
            false};
  }
  throw UsageError(fmt::format("--ablate {}: expected launch, locality or sync", name));
}

// One run of a config: its label, spec, outcome.
struct Run {
  std::string label;
  run::RunSpec spec;
  run::RunOutcome outcome;
};

// A run stopped by a limit says so on stderr at once (and in its summary: complete false,
// stopped_by), so that a script reading --json also sees it.
Run run_one(const std::optional<std::string>& config, const std::vector<std::string>& sets, std::string label,
            bool record_activity, const std::optional<std::chrono::nanoseconds>& max_wall, bool ideal_locality = false) {
  Run one_run{std::move(label), run::load_run_spec(config, sets), {}};
  one_run.spec.options.ideal_locality = ideal_locality;
  one_run.spec.options.max_wall = max_wall;
  one_run.outcome = run::run_workload(one_run.spec, record_activity);
  if (const auto stopped = run::stop_message(one_run.outcome.summary, one_run.spec.options)) {
    std::cerr << fmt::format("tessera run{}: {}\n", one_run.label.empty() ? "" : " [" + one_run.label + "]", *stopped);
  }
  return one_run;
}

// The variants side by side: each part in us, and how each differs from the fastest.
std::string render_side_by_side(const std::vector<Run>& runs) {
  std::vector<std::string> header{"time (us)"};
  for (const Run& r : runs) header.push_back(r.label);
  TextTable t(header);
  std::size_t fastest = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].outcome.summary["makespan_ns"].get<double>() < runs[fastest].outcome.summary["makespan_ns"].get<double>()) {
      fastest = i;
    }
  }
  for (const auto& c : kCategories) {
    std::vector<std::string> row{c.second};
    for (const Run& r : runs) row.push_back(fmt::format("{:.3f}", category_ns(r.outcome.summary, c) / 1e3));
    t.add_row(row);
  }
  std::vector<std::string> total{"makespan"};
  for (const Run& r : runs) total.push_back(fmt::format("{:.3f}", r.outcome.summary["makespan_ns"].get<double>() / 1e3));
  t.add_row(total);
  std::string out = "Side by side (critical GPU of each run):\n" + t.render();
  const nlohmann::json& best = runs[fastest].outcome.summary;
  out += fmt::format("Fastest: {} ({:.3f} us).\n", runs[fastest].label, best["makespan_ns"].get<double>() / 1e3);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == fastest) continue;
    const nlohmann::json& s = runs[i].outcome.summary;
    // The parts that grew the most explain the gap.
    std::vector<std::pair<double, std::string>> deltas;
    for (const auto& c : kCategories) deltas.emplace_back(category_ns(s, c) - category_ns(best, c), c.second);
    std::sort(deltas.begin(), deltas.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> parts;
    for (const auto& [delta, name] : deltas) {
      if (delta > 0 && parts.size() < 3) parts.push_back(fmt::format("{} +{:.3f} us", name, delta / 1e3));
    }
    out += fmt::format("{} is {:.3f} us slower: {}.\n", runs[i].label,
                       (s["makespan_ns"].get<double>() - best["makespan_ns"].get<double>()) / 1e3, fmt::join(parts, ", "));
  }
  return out;
}

// The files of --out DIR, each written atomically: summary.json (one run: its summary; several:
// {"runs": [...]}), taxes.csv and report.html over every run, and each run's timeline.json
// (several runs: timeline-LABEL.json).
void write_outputs(const std::filesystem::path& dir, const std::vector<Run>& runs) {
  std::filesystem::create_directories(dir);
  std::vector<report::LabeledSummary> labeled;
  for (const Run& r : runs) labeled.push_back({r.label, r.outcome.summary, run::describe_yaml(r.spec)});
  nlohmann::json summary;
  if (runs.size() == 1) {
    summary = runs[0].outcome.summary;
  } else {
    summary["runs"] = nlohmann::json::array();
    for (const Run& r : runs) summary["runs"].push_back(r.outcome.summary);
  }
  for (const Run& r : runs) {
    const std::string name = runs.size() == 1 ? "timeline.json" : "timeline-" + r.label + ".json";
    write_file_atomically(dir / name, report::timeline_json(r.outcome.summary, r.outcome.activity));
  }
  write_file_atomically(dir / "taxes.csv", report::taxes_csv(labeled));
  write_file_atomically(dir / "report.html", report::report_html(labeled));
  write_file_atomically(dir / "summary.json", summary.dump(2) + "\n");
}

// --ablate: the run again with one mechanism idealised, and how much each part moved.
std::string render_ablation(const Run& base, const Run& ideal, const Ablation& a) {
  const nlohmann::json& s0 = base.outcome.summary;
  const nlohmann::json& s1 = ideal.outcome.summary;
  if (!s0.contains("taxes_ns")) return "";
  TextTable t({"time (us)", "as run", "ablated", "change"});
  for (const auto& c : kCategories) {
    const double v0 = category_ns(s0, c) / 1e3;
    const double v1 = category_ns(s1, c) / 1e3;
    t.add_row({c.second, fmt::format("{:.3f}", v0), fmt::format("{:.3f}", v1), fmt::format("{:+.3f}", v1 - v0)});
  }
  const double m0 = s0["makespan_ns"].get<double>() / 1e3;
  const double m1 = s1["makespan_ns"].get<double>() / 1e3;
  t.add_row({"makespan", fmt::format("{:.3f}", m0), fmt::format("{:.3f}", m1), fmt::format("{:+.3f}", m1 - m0)});
  return fmt::format("Ablation '{}' ({} idealised): the makespan moves by {:+.3f} us; the attributed {} tax was {:.3f} us.\n",
                     a.name, a.tax, m1 - m0, a.tax, s0["taxes_ns"][a.tax].get<double>() / 1e3) +
         t.render();
}

}  // namespace

int command_run(const Args& args) {
  po::options_description opts(
      "tessera run [CONFIG] [options]\n\nRuns one workload on one system. Without CONFIG, runs the embedded default: "
      "ag_gemm on mi300x-8 (1024 x 3584 x 8192) as bsp, pull and push side by side (a --set of a workload key runs that one config instead).\n\nOptions");
  std::vector<std::string> sets;
  std::string out_dir;
  std::vector<std::string> ablate;
  opts.add_options()("help,h", "show this help")
      ("set", po::value<std::vector<std::string>>(&sets)->composing(), "override a config key: --set key.path=value (repeatable)")
      ("out", po::value<std::string>(&out_dir), "write summary.json, taxes.csv, timeline.json and report.html into this folder")
      ("json", "print one JSON object on stdout instead of the table")
      ("ablate", po::value<std::vector<std::string>>(&ablate)->composing(),
       "re-run with launch, locality or sync idealised and report the difference (repeatable)")
      ("seed", po::value<std::uint64_t>(), "seed of every random draw (overrides the config's seed)")
      ("max-events", po::value<std::uint64_t>(), "stop after this many events; the result is marked incomplete")
      ("max-wall", po::value<std::string>(), "stop each run after this much wall-clock time, e.g. 30s or \"1.5 s\" "
                                             "(units ps, ns, us, ms, s); the result is marked incomplete")
      ("dump-trace", po::value<std::string>(), "also write the workload's tile-level trace to FILE (.jsonl text, .tsrt binary)")
      ("config", po::value<std::string>(), "the run config (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("config", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  // Flags are config overrides with the same checks (and the flag named in errors).
  if (vm.count("seed")) sets.push_back(fmt::format("seed={}", vm["seed"].as<std::uint64_t>()));
  if (vm.count("max-events")) sets.push_back(fmt::format("max_events={}", vm["max-events"].as<std::uint64_t>()));
  std::optional<std::chrono::nanoseconds> max_wall;
  if (vm.count("max-wall")) max_wall = parse_max_wall(vm["max-wall"].as<std::string>());
  std::optional<std::string> config;
  if (vm.count("config")) config = vm["config"].as<std::string>();
  std::vector<Ablation> ablations;
  for (const std::string& a : ablate) ablations.push_back(ablation_of(a));

  // The runs: the config's, or the embedded default's three variants (unless --set chose one).
  std::vector<std::pair<std::string, std::vector<std::string>>> plans;
  const bool variant_set = std::any_of(sets.begin(), sets.end(), [](const std::string& s) { return s.rfind("workload", 0) == 0; });
  if (!config && !variant_set) {
    for (const char* v : kDefaultVariants) {
      std::vector<std::string> with = sets;
      with.push_back(fmt::format("workload.variant={}", v));
      plans.emplace_back(v, std::move(with));
    }
  } else {
    plans.emplace_back("", sets);
  }
  if (vm.count("dump-trace")) {
    const run::RunSpec spec = run::load_run_spec(config, plans.front().second);
    const auto trace = run::trace_of(spec);
    if (!trace) throw UsageError(fmt::format("--dump-trace: workload kind '{}' has no tile-level trace", spec.workload.kind()));
    workloads::trace::save_trace(*trace, vm["dump-trace"].as<std::string>());
  }
  std::vector<Run> runs;
  for (auto& [label, plan_sets] : plans) {
    Run one_run = run_one(config, plan_sets, label, !out_dir.empty(), max_wall);
    if (one_run.label.empty()) {
      const nlohmann::json& s = one_run.outcome.summary;
      one_run.label = s.contains("variant")   ? s["variant"].get<std::string>()
                      : s.contains("mapping") ? s["mapping"].get<std::string>()
                                              : s["workload"].get<std::string>();
    }
    runs.push_back(std::move(one_run));
  }
  std::string ablation_text;
  for (const Ablation& a : ablations) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      std::vector<std::string> with = plans[i].second;
      with.insert(with.end(), a.sets.begin(), a.sets.end());
      const Run ideal = run_one(config, with, runs[i].label, false, max_wall, a.ideal_locality);
      runs[i].outcome.summary["ablations"][a.name] = {{"makespan_ns", ideal.outcome.summary["makespan_ns"]},
                                                      {"taxes_ns", ideal.outcome.summary.value("taxes_ns", nlohmann::json())},
                                                      {"work_ns", ideal.outcome.summary.value("work_ns", nlohmann::json())}};
      ablation_text += fmt::format("\n[{}] ", runs[i].label) + render_ablation(runs[i], ideal, a);
    }
  }

  if (!out_dir.empty()) write_outputs(out_dir, runs);
  if (vm.count("json")) {
    if (runs.size() == 1) {
      std::cout << runs[0].outcome.summary.dump(2) << "\n";
    } else {
      nlohmann::json all;
      all["runs"] = nlohmann::json::array();
      for (const Run& r : runs) all["runs"].push_back(r.outcome.summary);
      std::cout << all.dump(2) << "\n";
    }
    return kExitOk;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs.size() > 1) std::cout << fmt::format("=== {} ===\n", runs[i].label);
    std::cout << render_text(runs[i].outcome.summary, runs[i].spec.options) << (runs.size() > 1 ? "\n" : "");
  }
  const bool has_taxes = std::all_of(runs.begin(), runs.end(), [](const Run& r) { return r.outcome.summary.contains("taxes_ns"); });
  if (runs.size() > 1 && has_taxes) std::cout << render_side_by_side(runs);
  std::cout << ablation_text;
  if (!out_dir.empty()) std::cout << fmt::format("wrote {}/: summary.json, taxes.csv, timeline*.json, report.html\n", out_dir);
  return kExitOk;
}

}  // namespace tessera::app
