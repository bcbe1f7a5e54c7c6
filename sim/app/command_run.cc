// tessera run [CONFIG] [--set K=V]... [--variants LIST|all] [--out DIR] [--json] [--ablate WHAT]... [--seed S]
//             [--max-events N] [--max-wall DURATION] [--dump-trace FILE] [--uncertainty N] [--jobs N] [--quiet]
//
// In four steps: the flags are parsed into a RunRequest; the request becomes a plan (which
// configs run, under which labels); the plan is executed (each run, then its ablated re-runs,
// then the sampled systems of --uncertainty); the results are rendered (terminal text or JSON,
// and the files of --out).

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/ablation.h"
#include "sim/app/atomic_file.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/interrupt.h"
#include "sim/app/max_wall_flag.h"
#include "sim/app/progress.h"
#include "sim/app/report/report_html.h"
#include "sim/app/report/taxes_csv.h"
#include "sim/app/report/timeline_json.h"
#include "sim/app/run/run_config_loader.h"
#include "sim/app/run/run_workload.h"
#include "sim/app/run/stop_message.h"
#include "sim/app/run_text.h"
#include "sim/app/sweep/sweep_runner.h"
#include "sim/app/uncertainty/makespan_spread.h"
#include "sim/app/uncertainty/parameter_sampling.h"
#include "sim/app/usage_error.h"
#include "sim/io/output_file.h"
#include "workloads/trace/trace_file.h"
#include "workloads/workload_kinds.h"

namespace po = boost::program_options;

namespace tessera::app {
namespace {

// What the flags ask for.
struct RunRequest {
  std::optional<std::string> config;  // nullopt: the embedded default
  std::vector<std::string> sets;      // --set, and --seed / --max-events as the overrides they are
  std::optional<std::chrono::nanoseconds> max_wall;
  std::vector<Ablation> ablations;
  std::string out_dir;  // empty: no files
  // What --out's timeline shows: none (no timeline.json), kernels (default) or workgroups (--timeline full).
  workloads::replay::ActivityDetail timeline = workloads::replay::ActivityDetail::kKernels;
  bool json = false;
  std::optional<std::string> dump_trace;
  bool quiet = false;  // no progress line on stderr
  std::optional<std::string> variants;  // --variants: "all" or a comma-separated list
  std::size_t uncertainty_samples = 0;  // --uncertainty N: 0 = none
  unsigned jobs = 1;                    // sampled runs at once
};

// One config to run: the label it is shown under (empty: named after its result) and its overrides.
struct PlannedRun {
  std::string label;
  std::vector<std::string> sets;
};

// One run as executed: its spec, outcome, and the same config re-run under each ablation.
struct Run {
  std::string label;
  run::RunSpec spec;
  run::RunOutcome outcome;
  std::vector<AblatedRun> ablated;  // in the order of RunRequest::ablations
};

struct Outcome {
  std::vector<Run> runs;
  std::optional<uncertainty::MakespanSpread> spread;  // --uncertainty
};

// Runs side by side in the embedded default: the three forms of ag_gemm.
constexpr std::array<const char*, 3> kDefaultVariants{"bsp", "pull", "push"};

// The names a run writes into --out DIR: a previous run's files among them are replaced as a
// whole by the next run's (write_outputs), whatever its labels.
bool is_run_output(const std::string& name) {
  if (name == "summary.json" || name == "taxes.csv" || name == "report.html") return true;
  for (const char* prefix : {"timeline", "stats"}) {
    const std::string p(prefix);
    if (name == p + ".json" || (name.starts_with(p + "-") && name.ends_with(".json"))) return true;
  }
  return false;
}

// nullopt when --help was asked for (and printed).
std::optional<RunRequest> parse_request(const Args& args) {
  po::options_description opts(
      "tessera run [CONFIG] [options]\n\nRuns one workload on one system. Without CONFIG, runs the embedded default: "
      "ag_gemm on mi300x-8 (1024 x 3584 x 8192) as bsp, pull and push side by side (a --set of a workload key runs that one config instead).\n\nOptions");
  RunRequest request;
  std::vector<std::string> ablate;
  opts.add_options()("help,h", "show this help")
      ("set", po::value<std::vector<std::string>>(&request.sets)->composing(), "override a config key: --set key.path=value (repeatable)")
      ("out", po::value<std::string>(&request.out_dir), "write summary.json, taxes.csv, timeline.json, stats.json and report.html into this folder")
      ("timeline", po::value<std::string>()->default_value("kernels"),
       "what --out's timeline.json holds: none (no file), kernels (each GPU's kernels and where its time goes, per "
       "stream; small) or full (also a track per CU slot and the flag arrows; hundreds of MB for large runs)")
      ("json", "print one JSON object on stdout instead of the table")
      ("ablate", po::value<std::vector<std::string>>(&ablate)->composing(),
       "re-run with launch, locality or sync idealised and report the difference (repeatable)")
      ("seed", po::value<Count<std::uint64_t>>(), "seed of every random draw (overrides the config's seed)")
      ("max-events", po::value<Count<std::uint64_t>>(), "stop after this many events; the result is marked incomplete")
      ("max-wall", po::value<std::string>(), "stop each run after this much wall-clock time, e.g. 30s or \"1.5 s\" "
                                             "(units ps, ns, us, ms, s); the result is marked incomplete")
      ("dump-trace", po::value<std::string>(), "also write the workload's tile-level trace to FILE (.jsonl text, .tsrt binary)")
      ("variants", po::value<std::string>(),
       "run these variants of the workload side by side: a comma-separated list (bsp,pull) or all (every variant "
       "its kind has; attention's are its mappings)")
      ("uncertainty", po::value<Count<std::size_t>>(),
       "also run N systems with each parameter of the system file's uncertainty: ranges drawn uniformly (seeded by "
       "--seed) and report each variant's makespan interval and how often it is fastest")
      ("jobs,j", po::value<Count<unsigned>>(), "sampled runs of --uncertainty at once (default: the hardware threads)")
      ("quiet", "no progress line on stderr")
      ("config", po::value<std::string>(), "the run config (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("config", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return std::nullopt;
  const po::variables_map& vm = *parsed;
  // Output paths are checked before any work (an empty name is refused too).
  if (vm.count("out")) sim::io::check_output_folder(request.out_dir, "--out", is_run_output);
  if (vm.count("dump-trace")) sim::io::check_output_file(vm["dump-trace"].as<std::string>(), "--dump-trace");
  // Flags are config overrides with the same checks (and the flag named in errors).
  if (vm.count("seed")) request.sets.push_back(fmt::format("seed={}", vm["seed"].as<Count<std::uint64_t>>().value));
  if (vm.count("max-events")) request.sets.push_back(fmt::format("max_events={}", vm["max-events"].as<Count<std::uint64_t>>().value));
  if (vm.count("max-wall")) request.max_wall = parse_max_wall(vm["max-wall"].as<std::string>());
  if (vm.count("config")) request.config = vm["config"].as<std::string>();
  if (vm.count("dump-trace")) request.dump_trace = vm["dump-trace"].as<std::string>();
  request.json = vm.count("json") > 0;
  request.quiet = vm.count("quiet") > 0;
  const std::string timeline = vm["timeline"].as<std::string>();
  if (timeline == "none") {
    request.timeline = workloads::replay::ActivityDetail::kNone;
  } else if (timeline == "full") {
    request.timeline = workloads::replay::ActivityDetail::kWorkgroups;
  } else if (timeline != "kernels") {
    throw UsageError(fmt::format("--timeline {}: expected none, kernels or full", timeline));
  }
  for (const std::string& a : ablate) request.ablations.push_back(ablation_of(a));
  if (vm.count("variants")) request.variants = vm["variants"].as<std::string>();
  if (vm.count("uncertainty")) {
    request.uncertainty_samples = vm["uncertainty"].as<Count<std::size_t>>().value;
    if (request.uncertainty_samples == 0) throw UsageError("--uncertainty must be at least 1 (samples)");
  }
  request.jobs = sweep::hardware_jobs();
  if (vm.count("jobs")) {
    request.jobs = vm["jobs"].as<Count<unsigned>>().value;
    if (request.jobs == 0) throw UsageError("--jobs must be at least 1");
  }
  return request;
}

// The key that chooses between a kind's forms: `variant`, or `mapping` (attention), or none.
struct VariantKey {
  std::string key;
  std::vector<std::string> choices;
};

VariantKey variant_key_of(const std::string& kind) {
  for (const workloads::WorkloadKind& k : workloads::workload_kinds()) {
    if (k.name != kind) continue;
    const nlohmann::json fields = k.schema_json().value("fields", nlohmann::json::array());
    for (const char* key : {"variant", "mapping"}) {
      for (const nlohmann::json& field : fields) {
        if (field.value("key", "") == key && field.contains("choices")) return {key, field["choices"]};
      }
    }
  }
  return {};
}

// The variants --variants names, checked against the choices of the workload kind's variant key.
std::pair<std::string, std::vector<std::string>> variants_of(const RunRequest& request) {
  const run::RunSpec spec = run::load_run_spec(request.config, request.sets);
  const auto [key, choices] = variant_key_of(spec.workload.kind());
  if (choices.empty()) {
    throw UsageError(fmt::format("--variants: workload kind '{}' has no variants", spec.workload.kind()));
  }
  if (*request.variants == "all") return {key, choices};
  std::vector<std::string> named;
  std::string_view rest = *request.variants;
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    const std::string v(rest.substr(0, comma));
    if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
      throw UsageError(fmt::format("--variants: '{}' is not a variant of workload kind '{}' (variants: {})", v,
                                   spec.workload.kind(), fmt::join(choices, ", ")));
    }
    if (std::find(named.begin(), named.end(), v) != named.end()) throw UsageError(fmt::format("--variants: '{}' twice", v));
    named.push_back(v);
    rest = comma < rest.size() ? rest.substr(comma + 1) : std::string_view{};
  }
  if (named.empty()) throw UsageError("--variants: expected all or a comma-separated list of variants");
  return {key, named};
}

// The config's one run, or the embedded default's three variants (unless --set chose a workload
// key), or the variants --variants names.
std::vector<PlannedRun> plan_runs(const RunRequest& request) {
  if (request.variants) {
    std::vector<PlannedRun> plans;
    const auto [key, variants] = variants_of(request);
    for (const std::string& v : variants) {
      std::vector<std::string> with = request.sets;
      with.push_back(fmt::format("workload.{}={}", key, v));
      plans.push_back({v, std::move(with)});
    }
    return plans;
  }
  const bool workload_set = std::any_of(request.sets.begin(), request.sets.end(),
                                        [](const std::string& s) { return s.rfind("workload", 0) == 0; });
  if (request.config || workload_set) return {{"", request.sets}};
  std::vector<PlannedRun> plans;
  for (const char* v : kDefaultVariants) {
    std::vector<std::string> with = request.sets;
    with.push_back(fmt::format("workload.variant={}", v));
    plans.push_back({v, std::move(with)});
  }
  return plans;
}

// A run stopped by a limit says so on stderr at once (and in its result: complete false,
// stopped_by), so that a script reading --json also sees it.
run::RunOutcome run_config(const RunRequest& request, const std::vector<std::string>& sets, const std::string& label,
                           workloads::replay::ActivityDetail activity, const Ablation* ablation, run::RunSpec& spec) {
  spec = run::load_run_spec(request.config, sets);
  if (ablation != nullptr) {
    spec.options.ideal_locality = ablation->ideal_locality;
    spec.options.dataflow_oracle = ablation->dataflow_oracle;
    spec.options.skip_host_delays = ablation->skip_host_delays;
  }
  spec.options.max_wall = request.max_wall;
  spec.options.stop_requested = &interrupt_flag();
  run::RunOutcome outcome = run::run_workload(spec, activity);
  if (const auto stopped = run::stop_message(outcome.result, spec.options)) {
    write_stderr(fmt::format("tessera run{}: {}\n", label.empty() ? "" : " [" + label + "]", *stopped));
  }
  return outcome;
}

std::vector<Run> execute(const RunRequest& request, const std::vector<PlannedRun>& plans) {
  if (request.dump_trace) {
    const run::RunSpec spec = run::load_run_spec(request.config, plans.front().sets);
    const auto trace = run::trace_of(spec);
    if (!trace) throw UsageError(fmt::format("--dump-trace: workload kind '{}' has no tile-level trace", spec.workload.kind()));
    workloads::trace::save_trace(*trace, *request.dump_trace);
  }
  // A step per run and per ablated re-run (one that changes nothing is a step too, over at once).
  ProgressLine progress(ProgressStyle::kSteps, "run", plans.size() * (1 + request.ablations.size()),
                        progress_wanted(request.quiet));
  std::vector<Run> runs;
  for (const PlannedRun& plan : plans) {
    progress.begin_step(plan.label);
    Run r;
    r.label = plan.label;
    // The report's link charts need the links' utilisation even without a timeline file.
    const auto activity = request.out_dir.empty() ? workloads::replay::ActivityDetail::kNone
                          : request.timeline == workloads::replay::ActivityDetail::kNone
                              ? workloads::replay::ActivityDetail::kKernels
                              : request.timeline;
    r.outcome = run_config(request, plan.sets, plan.label, activity, nullptr, r.spec);
    if (r.label.empty()) r.label = r.outcome.result.default_label();
    runs.push_back(std::move(r));
  }
  for (const Ablation& a : request.ablations) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      progress.begin_step(fmt::format("{} --ablate {}", runs[i].label, a.name));
      std::vector<std::string> with = plans[i].sets;
      with.insert(with.end(), a.sets.begin(), a.sets.end());
      // An ablation whose overrides leave the configuration as it was (its costs are already 0 in
      // this system) would re-run the same thing: it is reported as changing nothing instead.
      const bool changes_config = run::describe_yaml(run::load_run_spec(request.config, with)) != run::describe_yaml(runs[i].spec);
      // A trace file may carry host delays that no config key sets: `launch` re-runs it to remove them.
      const bool trace_delays = a.skip_host_delays && runs[i].spec.workload.kind() == "trace";
      AblatedRun ablated{runs[i].outcome.result, !changes_config && !a.ideal_locality && !a.dataflow_oracle && !trace_delays};
      run::RunSpec spec;
      if (!ablated.unchanged) {
        ablated.result =
            run_config(request, with, runs[i].label, workloads::replay::ActivityDetail::kNone, &a, spec).result;
      } else if ((ablated.reference = reference_cost(a))) {
        // Nothing to take away: show what the measured cost would add instead.
        std::vector<std::string> measured = plans[i].sets;
        measured.insert(measured.end(), ablated.reference->sets.begin(), ablated.reference->sets.end());
        ablated.with_reference =
            run_config(request, measured, runs[i].label, workloads::replay::ActivityDetail::kNone, nullptr, spec).result;
      }
      const workloads::WorkloadResult& w = ablated.result.result;
      runs[i].outcome.result.ablations[a.name] = {
          w.makespan_ps, w.breakdown ? std::optional<workloads::replay::CategoryTimes>(w.breakdown->times) : std::nullopt};
      runs[i].ablated.push_back(std::move(ablated));
    }
  }
  progress.finish();
  return runs;
}

// --uncertainty N: every planned run again on N sampled systems. The draws depend on the seed and
// the sample's index only, and each result lands in its own slot, so the output is the same on
// any number of threads.
uncertainty::MakespanSpread run_samples(const RunRequest& request, const std::vector<PlannedRun>& plans,
                                        const std::vector<Run>& runs) {
  const run::RunSpec& first = runs.front().spec;
  const std::vector<models::ParameterRange>& ranges = first.parameter_ranges;
  uncertainty::check_range_bounds(run::load_run_config(request.config, plans.front().sets).at("system"), ranges);
  const std::size_t samples = request.uncertainty_samples;
  const std::uint64_t seed = first.options.seed;
  std::vector<std::vector<double>> makespans_ns(samples, std::vector<double>(plans.size(), 0.0));
  std::vector<std::string> errors(samples * plans.size());
  std::vector<char> incomplete(samples * plans.size(), 0);
  ProgressLine progress(ProgressStyle::kBar, "uncertainty", samples * plans.size(), progress_wanted(request.quiet));
  sweep::run_parallel(samples * plans.size(), request.jobs, [&](std::size_t i) {
    const std::size_t s = i / plans.size();
    const std::size_t v = i % plans.size();
    try {
      std::vector<std::string> sets = plans[v].sets;
      for (std::string& o : uncertainty::sample_overrides(ranges, seed, s)) sets.push_back(std::move(o));
      run::RunSpec spec = run::load_run_spec(request.config, sets);
      spec.options.max_wall = request.max_wall;
      spec.options.stop_requested = &interrupt_flag();
      const run::RunResult r = run::run_workload(spec, workloads::replay::ActivityDetail::kNone).result;
      makespans_ns[s][v] = r.makespan_ns();
      incomplete[i] = r.result.complete ? 0 : 1;
    } catch (const std::exception& e) {
      errors[i] = e.what();
    }
    progress.advance(!errors[i].empty());
  });
  progress.finish();
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (!errors[i].empty()) {
      throw std::runtime_error(fmt::format("--uncertainty: sample {} of {}: {}", i / plans.size(),
                                           plans[i % plans.size()].label.empty() ? runs[0].label : plans[i % plans.size()].label,
                                           errors[i]));
    }
  }
  std::vector<std::string> labels;
  std::vector<double> nominal_ns;
  for (const Run& r : runs) {
    labels.push_back(r.label);
    nominal_ns.push_back(r.outcome.result.makespan_ns());
  }
  uncertainty::MakespanSpread spread = uncertainty::spread_of(labels, nominal_ns, makespans_ns, ranges, seed);
  spread.incomplete_samples = static_cast<std::size_t>(std::count(incomplete.begin(), incomplete.end(), 1));
  return spread;
}

std::vector<report::LabeledRun> labeled(const std::vector<Run>& runs) {
  std::vector<report::LabeledRun> out;
  for (const Run& r : runs) out.push_back({r.label, r.outcome.result, run::describe_yaml(r.spec)});
  return out;
}

// What --json prints and summary.json holds: one run's summary, or {"runs": [...]} for several;
// with --uncertainty, its spread as "uncertainty".
nlohmann::json summary_json(const Outcome& outcome) {
  nlohmann::json j;
  if (outcome.runs.size() == 1) {
    j = run::to_json(outcome.runs[0].outcome.result);
  } else {
    j["runs"] = nlohmann::json::array();
    for (const Run& r : outcome.runs) j["runs"].push_back(run::to_json(r.outcome.result));
  }
  if (outcome.spread) j["uncertainty"] = uncertainty::spread_json(*outcome.spread);
  return j;
}

// The files of --out DIR: summary.json (one run: its summary; several: {"runs": [...]}),
// taxes.csv and report.html over every run, and each run's timeline.json and stats.json, every
// statistic the models registered (several runs: timeline-LABEL.json, ...). They are written
// as one (sim::io::StagedFolder): DIR holds one run's files, never a mix of two.
void write_outputs(const std::filesystem::path& dir, const Outcome& outcome, workloads::replay::ActivityDetail timeline) {
  const std::vector<Run>& runs = outcome.runs;
  sim::io::StagedFolder out(dir);
  for (const Run& r : runs) {
    const std::string suffix = runs.size() == 1 ? ".json" : "-" + r.label + ".json";
    if (timeline != workloads::replay::ActivityDetail::kNone) {
      out.write("timeline" + suffix, report::timeline_json(r.outcome.result, r.outcome.activity, timeline));
    }
    out.write("stats" + suffix, sim::stats::to_json(r.outcome.result.result.statistics).dump(2) + "\n");
  }
  const std::vector<report::LabeledRun> all = labeled(runs);
  out.write("taxes.csv", report::taxes_csv(all));
  out.write("report.html", report::report_html(all));
  out.write("summary.json", summary_json(outcome).dump(2) + "\n");
  out.publish(is_run_output);
}

void render(const RunRequest& request, const Outcome& outcome) {
  const std::vector<Run>& runs = outcome.runs;
  if (!request.out_dir.empty()) write_outputs(request.out_dir, outcome, request.timeline);
  if (request.json) {
    std::cout << summary_json(outcome).dump(2) << "\n";
    return;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs.size() > 1) std::cout << fmt::format("=== {} ===\n", runs[i].label);
    std::cout << render_run_text(runs[i].outcome.result, runs[i].spec.options) << (runs.size() > 1 ? "\n" : "");
  }
  const bool all_have_breakdowns = std::all_of(runs.begin(), runs.end(), [](const Run& r) {
    return r.outcome.result.result.breakdown.has_value();
  });
  if (runs.size() > 1 && all_have_breakdowns) std::cout << render_side_by_side(labeled(runs));
  for (std::size_t a = 0; a < request.ablations.size(); ++a) {
    for (const Run& r : runs) {
      std::cout << fmt::format("\n[{}] ", r.label) << render_ablation(r.outcome.result, r.ablated[a], request.ablations[a]);
    }
  }
  if (outcome.spread) std::cout << "\n" << uncertainty::spread_text(*outcome.spread);
  if (!request.out_dir.empty()) {
    std::cout << fmt::format("wrote {}/: summary.json, taxes.csv, timeline*.json, stats*.json, report.html\n", request.out_dir);
  }
}

}  // namespace

int command_run(const Args& args) {
  const std::optional<RunRequest> request = parse_request(args);
  if (!request) return kExitOk;
  const std::vector<PlannedRun> plans = plan_runs(*request);
  // From here on SIGINT/SIGTERM stop the run cleanly: its engine sees the flag, and nothing is
  // written (a result cut short is not one).
  const InterruptScope interrupt_scope;
  Outcome outcome{execute(*request, plans), std::nullopt};
  if (request->uncertainty_samples > 0 && !interrupt_requested()) outcome.spread = run_samples(*request, plans, outcome.runs);
  if (interrupt_requested()) {
    write_stderr(fmt::format("tessera run: interrupted; nothing written{}\n",
                             request->out_dir.empty() ? "" : fmt::format(" ({} is as it was)", request->out_dir)));
    return kExitInterrupted;
  }
  render(*request, outcome);
  return kExitOk;
}

}  // namespace tessera::app
