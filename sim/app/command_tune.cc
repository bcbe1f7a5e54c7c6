// tessera tune CONFIG --space SPACE.yaml [--objective makespan|l2_hit_rate] [--budget N]
//                     [--search auto|exhaustive|halving|coordinate] [--jobs N] [--out DIR] [--resume]
//                     [--set K=V]... [--quiet]
// Finds the candidate of a space of run-config values (mapping, swizzle, tiles, variant, ...)
// with the best predicted objective (docs/tune.md): runs the candidates the search asks for on
// every core (and over MPI ranks, like sweep), ranks them, writes the best as a run config, and
// says which parts of the breakdown made it win.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/app/atomic_file.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/interrupt.h"
#include "sim/app/progress.h"
#include "sim/app/sweep/comparison.h"
#include "sim/app/sweep/mpi_session.h"
#include "sim/app/sweep/point_config.h"
#include "sim/app/sweep/point_store.h"
#include "sim/app/sweep/results_csv.h"
#include "sim/app/sweep/summary_metrics.h"
#include "sim/app/sweep/sweep_points.h"
#include "sim/app/sweep/sweep_runner.h"
#include "sim/app/text_table.h"
#include "sim/app/time_unit.h"
#include "sim/app/tune/search.h"
#include "sim/app/tune/tune_space.h"
#include "sim/app/usage_error.h"
#include "sim/config/config_error.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"
#include "sim/io/output_file.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace tessera::app {
namespace {

using sweep::PointResult;
using sweep::PreparedPoint;
using sweep::SweepPoint;
using tune::Candidate;
using tune::Score;

enum class Objective { kMakespan, kL2HitRate };

struct TuneRequest {
  std::string config;
  std::string space;
  Objective objective = Objective::kMakespan;
  std::size_t budget = tune::SearchSettings{}.budget;
  tune::SearchMethod method = tune::SearchMethod::kAuto;
  std::optional<unsigned> jobs;
  std::optional<std::string> out_dir;
  bool resume = false;
  bool quiet = false;
  std::vector<std::string> sets;
};

std::optional<TuneRequest> parse_request(const Args& args) {
  po::options_description opts(
      "tessera tune CONFIG --space SPACE.yaml [options]\n\nFinds the best candidate of a space of run-config values "
      "(SPACE.yaml: key path -> list of candidates or\n{from, to, step | factor}; docs/tune.md) for the run config "
      "CONFIG. Exhaustive when the space has at most\n--budget candidates; otherwise successive halving when the space "
      "gives a cheaper proxy: of the run, else\ncoordinate descent. Writes DIR/best.yaml (the best run config), "
      "DIR/ranking.csv, DIR/tune.json and each run\nin DIR/points/ (DIR/proxy/ for the screening); --resume reuses "
      "them. Runs on every core and over the\nranks of an MPI launch.\n\nOptions");
  TuneRequest request;
  opts.add_options()("help,h", "show this help")
      ("space", po::value<std::string>(), "the space file (required)")
      ("objective", po::value<std::string>()->default_value("makespan"),
       "what to optimise: makespan (lowest) or l2_hit_rate (highest; ties by makespan)")
      ("budget", po::value<Count<std::size_t>>(), "the most runs at full fidelity (default 16)")
      ("search", po::value<std::string>()->default_value("auto"), "auto, exhaustive, halving or coordinate")
      ("jobs,j", po::value<Count<unsigned>>(), "runs at once on this machine (default: its hardware threads, shared "
                                        "between the MPI ranks on it)")
      ("out", po::value<std::string>(), "output folder (default: ./SPACE.tune, SPACE the space file's name)")
      ("resume", "reuse the runs whose points/NNNN.json (proxy/NNNN.json) exists for the same config")
      ("set", po::value<std::vector<std::string>>(&request.sets)->composing(),
       "override a key of every candidate's config: --set key.path=value (repeatable; not a tuned key)")
      ("quiet", "no progress bar on stderr")
      ("config", po::value<std::string>(), "the run config (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("config", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return std::nullopt;
  const po::variables_map& vm = *parsed;
  if (!vm.count("config")) throw UsageError("tune: missing the run config (tessera tune CONFIG --space SPACE.yaml)");
  if (!vm.count("space")) throw UsageError("tune: missing --space SPACE.yaml (the keys to tune and their candidates)");
  request.config = vm["config"].as<std::string>();
  request.space = vm["space"].as<std::string>();
  const std::string objective = vm["objective"].as<std::string>();
  if (objective == "makespan") {
    request.objective = Objective::kMakespan;
  } else if (objective == "l2_hit_rate") {
    request.objective = Objective::kL2HitRate;
  } else {
    throw UsageError(fmt::format("--objective: expected makespan or l2_hit_rate, got '{}'", objective));
  }
  if (vm.count("budget")) {
    request.budget = vm["budget"].as<Count<std::size_t>>().value;
    if (request.budget == 0) throw UsageError("--budget must be at least 1 (runs)");
  }
  const auto method = tune::search_method_from(vm["search"].as<std::string>());
  if (!method) {
    throw UsageError(fmt::format("--search: expected auto, exhaustive, halving or coordinate, got '{}'",
                                 vm["search"].as<std::string>()));
  }
  request.method = *method;
  if (vm.count("jobs")) {
    request.jobs = vm["jobs"].as<Count<unsigned>>().value;
    if (*request.jobs == 0) throw UsageError("--jobs must be at least 1");
  }
  if (vm.count("out")) request.out_dir = vm["out"].as<std::string>();
  request.resume = vm.count("resume") > 0;
  request.quiet = vm.count("quiet") > 0;
  return request;
}

// A run config named on the command line, as the study's base: a file that exists is given by its
// absolute path (the base is resolved from the space file's folder otherwise); anything else is
// a name the resolver knows (an embedded config).
std::string config_reference(const std::string& config) {
  std::error_code ec;
  if (fs::is_regular_file(config, ec)) return fs::absolute(config).lexically_normal().string();
  return config;
}

// The candidates' configs, prepared on first use: full fidelity, or the proxy's (the space's
// proxy: overrides after the --set flags). A combination the config checks reject is an error
// kept with the candidate, not a failure of the command.
class CandidateConfigs {
 public:
  CandidateConfigs(const tune::TuneSpace& space, const sweep::Study& study, std::vector<sim::config::Override> sets, bool proxy)
      : space_(space), study_(study), overrides_(std::move(sets)) {
    if (proxy) overrides_.insert(overrides_.end(), space.proxy.begin(), space.proxy.end());
  }

  SweepPoint point(Candidate c) const {
    SweepPoint p;
    p.index = c;
    const std::vector<std::size_t> at = tune::coordinates_of(c, space_.axis_sizes());
    for (std::size_t a = 0; a < at.size(); ++a) {
      for (const auto& value : space_.axes[a].rows[at[a]]) p.values.push_back(value);
    }
    return p;
  }
  // Throws the config error.
  PreparedPoint prepare_or_throw(Candidate c) const { return sweep::prepare_point(study_, point(c), overrides_); }
  // The prepared config, or the reason it is invalid.
  const std::variant<PreparedPoint, std::string>& get(Candidate c) {
    auto it = cache_.find(c);
    if (it != cache_.end()) return it->second;
    std::variant<PreparedPoint, std::string> v;
    try {
      PreparedPoint p = prepare_or_throw(c);
      p.spec.options.stop_requested = &interrupt_flag();  // not in the config hash (run_spec.h)
      v = std::move(p);
    } catch (const sim::config::ConfigError& e) {
      v = std::string(e.what());
    }
    return cache_.emplace(c, std::move(v)).first->second;
  }
  sim::config::ConfigNode config_node(Candidate c) const {
    return sweep::point_config_node(study_, point(c), overrides_);
  }

 private:
  const tune::TuneSpace& space_;
  const sweep::Study& study_;
  std::vector<sim::config::Override> overrides_;
  std::map<Candidate, std::variant<PreparedPoint, std::string>> cache_;
};

std::vector<std::string> values_text(const SweepPoint& p) {
  std::vector<std::string> out;
  for (const auto& v : p.values) out.push_back(sweep::compact_text(v));
  return out;
}

std::string label_of(const tune::TuneSpace& space, const SweepPoint& p) {
  return sweep::point_label(p, sweep::label_names(space.keys()));
}

// Runs batches of candidates at one fidelity: this rank's share in parallel, every rank's results
// shared with every rank, each run kept in its folder (and read back there by --resume).
class BatchRunner {
 public:
  BatchRunner(CandidateConfigs& configs, const tune::TuneSpace& space, const sweep::MpiSession& mpi, fs::path dir,
              unsigned jobs, bool resume, bool quiet, Objective objective, std::string what)
      : configs_(configs), space_(space), mpi_(mpi), dir_(std::move(dir)), jobs_(jobs), resume_(resume), quiet_(quiet),
        objective_(objective), what_(std::move(what)) {}

  std::vector<std::optional<Score>> operator()(const std::vector<Candidate>& batch) {
    const std::size_t n = space_.num_candidates();
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (static_cast<int>(i % static_cast<std::size_t>(mpi_.size())) == mpi_.rank()) mine.push_back(i);
    }
    std::vector<PointResult> done(mine.size());
    std::vector<std::size_t> to_run;
    std::vector<const PreparedPoint*> prepared_of(mine.size(), nullptr);  // filled here, read by the threads
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const Candidate c = batch[mine[j]];
      done[j].index = c;
      const auto& config = configs_.get(c);
      if (const auto* error = std::get_if<std::string>(&config)) {
        done[j].error = "not a valid combination: " + *error;
        continue;
      }
      const auto& prepared = std::get<PreparedPoint>(config);
      prepared_of[j] = &prepared;
      if (resume_) {
        if (auto r = sweep::read_finished_point(sweep::point_file(dir_, c, n), c, prepared.config_hash)) {
          done[j] = std::move(*r);
          continue;
        }
      }
      to_run.push_back(j);
    }
    ProgressLine progress(ProgressStyle::kBar, what_, to_run.size(), mpi_.rank() == 0 && progress_wanted(quiet_));
    sweep::run_parallel(to_run.size(), jobs_, [&](std::size_t k) {
      const std::size_t j = to_run[k];
      const Candidate c = batch[mine[j]];
      const PreparedPoint& prepared = *prepared_of[j];
      PointResult r = sweep::run_point(c, prepared.spec);
      if (r.ok) {
        try {
          sweep::write_point_file(sweep::point_file(dir_, c, n), r, space_.keys(), values_text(configs_.point(c)),
                                  prepared.config_hash);
        } catch (const std::exception& e) {
          r.ok = false;
          r.error = fmt::format("the run finished but its summary could not be written: {}", e.what());
          r.result.reset();
        }
      }
      progress.advance(!r.ok);
      done[j] = std::move(r);
    }, &interrupt_flag());
    progress.finish();
    // Every rank gets every result, so that every rank's search takes the same next step (an
    // interrupted rank still takes part in the exchange, so that no rank waits for it forever).
    nlohmann::json payload = nlohmann::json::array();
    for (const PointResult& r : done) payload.push_back(sweep::to_json(r));
    std::map<Candidate, PointResult> by_candidate;
    for (const std::string& text : mpi_.all_gather(payload.dump())) {
      for (const nlohmann::json& j : nlohmann::json::parse(text)) {
        PointResult r = sweep::point_result_from_json(j);
        by_candidate[r.index] = std::move(r);
      }
    }
    if (interrupt_requested()) throw Interrupted{};
    std::vector<std::optional<Score>> scores;
    for (Candidate c : batch) {
      PointResult& r = by_candidate.at(c);
      scores.push_back(score_of(r));
      results_[c] = std::move(r);
    }
    return scores;
  }

  const std::map<Candidate, PointResult>& results() const { return results_; }
  struct Interrupted {};

 private:
  std::optional<Score> score_of(PointResult& r) const {
    if (!r.ok || !r.result) return std::nullopt;
    const sweep::SummaryMetrics m = sweep::metrics_of(r.result);
    const double makespan = m.makespan_ns.value_or(0);
    if (objective_ == Objective::kMakespan) return Score{makespan, makespan};
    if (!m.l2_hit_rate) {
      r.ok = false;
      r.error = "the run has no L2 hit rate (it made no cache accesses): cannot rank it by l2_hit_rate";
      return std::nullopt;
    }
    return Score{-*m.l2_hit_rate, makespan};
  }

  CandidateConfigs& configs_;
  const tune::TuneSpace& space_;
  const sweep::MpiSession& mpi_;
  fs::path dir_;
  unsigned jobs_;
  bool resume_;
  bool quiet_;
  Objective objective_;
  std::string what_;
  std::map<Candidate, PointResult> results_;
};

// Every value of the space must make a valid config with the start candidate (the first value of
// every key): a misspelt key or a malformed value stops the command (exit 2, naming the space
// file's line and key) before anything runs. Combinations of valid values that the config checks
// reject are only skipped (listed in the ranking).
void check_space_values(const tune::TuneSpace& space, const CandidateConfigs& configs, const CandidateConfigs* proxy) {
  const std::vector<std::size_t> sizes = space.axis_sizes();
  try {
    configs.prepare_or_throw(0);
    if (proxy != nullptr) proxy->prepare_or_throw(0);
  } catch (const sim::config::ConfigError& e) {
    throw sim::config::ConfigError(e.location(), e.key_path(),
                                   fmt::format("{} (the start candidate, the first value of every key, must be a valid "
                                               "config)", e.message()));
  }
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    for (std::size_t v = 1; v < sizes[a]; ++v) {
      std::vector<std::size_t> at(sizes.size(), 0);
      at[a] = v;
      configs.prepare_or_throw(tune::candidate_of(at, sizes));
    }
  }
}

struct Ranked {
  Candidate candidate;
  const PointResult* result;
  std::optional<Score> score;
};

std::vector<Ranked> rank(const tune::SearchOutcome& outcome, const std::map<Candidate, PointResult>& results) {
  std::vector<Ranked> out;
  for (const auto& [c, s] : outcome.evaluated) out.push_back({c, &results.at(c), s});
  std::sort(out.begin(), out.end(), [](const Ranked& a, const Ranked& b) {
    if (a.score.has_value() != b.score.has_value()) return a.score.has_value();
    if (a.score && *a.score != *b.score) return *a.score < *b.score;
    return a.candidate < b.candidate;
  });
  return out;
}

// "makespan -3.2 us (-1.3%): bulk_synchronous -10.0 us, compute +5.1 us": the parts that moved
// the most from `other` to `best`.
std::string why(const run::RunResult& best, const run::RunResult& other) {
  const std::vector<sweep::ComparisonRow> rows = sweep::compare_runs(other, best);
  double max_ns = 0;
  for (const auto& r : rows) max_ns = std::max(max_ns, std::fabs(r.delta_ns().value_or(0)));
  const TimeUnit unit = pick_time_unit(max_ns);
  std::vector<std::pair<double, std::string>> parts;
  std::string head;
  for (const auto& r : rows) {
    const auto delta = r.delta_ns();
    if (!delta) continue;
    const std::string name = r.quantity.substr(0, r.quantity.size() - 3);
    if (r.quantity == "makespan_ns") {
      if (*delta == 0) return "the same makespan (a tie: the lower point ranks first)";
      const auto pct = r.delta_pct();
      head = fmt::format("makespan {} {}{}", format_time_change(*delta, unit), unit_symbol(unit),
                         pct ? fmt::format(" ({:+.2f}%)", *pct) : "");
      continue;
    }
    if (*delta != 0) parts.emplace_back(*delta, fmt::format("{} {} {}", name, format_time_change(*delta, unit), unit_symbol(unit)));
  }
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return std::fabs(a.first) > std::fabs(b.first); });
  std::vector<std::string> top;
  for (std::size_t i = 0; i < parts.size() && i < 3; ++i) top.push_back(parts[i].second);
  return top.empty() ? head : fmt::format("{}: {}", head, fmt::join(top, ", "));
}

std::string hit_text(const std::optional<double>& rate) {
  return rate ? fmt::format("{:.1f}", 100 * *rate) : std::string("-");
}

std::string render_ranking(const tune::TuneSpace& space, const CandidateConfigs& configs, const std::vector<Ranked>& ranked) {
  constexpr std::size_t kMaxRows = 20;
  double max_ns = 0;
  std::array<bool, sweep::kNumTimeCategories> has_part{};
  for (std::size_t i = 0; i < ranked.size() && i < kMaxRows; ++i) {
    const sweep::SummaryMetrics m = sweep::metrics_of(ranked[i].result->result);
    max_ns = std::max(max_ns, m.makespan_ns.value_or(0));
    for (std::size_t c = 0; c < sweep::kNumTimeCategories; ++c) has_part[c] = has_part[c] || m.parts_ns[c].has_value();
  }
  const TimeUnit unit = pick_time_unit(max_ns);
  std::vector<std::string> header{"rank", "point"};
  for (const std::string& name : sweep::label_names(space.keys())) header.push_back(name);
  header.push_back(with_unit("makespan", unit));
  header.insert(header.end(), {"L2 hit (%)", "MALL hit (%)"});
  for (std::size_t c = 0; c < sweep::kNumTimeCategories; ++c) {
    if (has_part[c]) header.push_back(with_unit(workloads::replay::to_string(sweep::time_category(c)), unit));
  }
  header.emplace_back("status");
  TextTable t(header);
  for (std::size_t i = 0; i < ranked.size() && i < kMaxRows; ++i) {
    const Ranked& r = ranked[i];
    const sweep::SummaryMetrics m = sweep::metrics_of(r.result->result);
    std::vector<std::string> row{r.score ? std::to_string(i + 1) : "-", std::to_string(r.candidate)};
    for (const std::string& v : values_text(configs.point(r.candidate))) row.push_back(v);
    row.push_back(m.makespan_ns ? format_time(*m.makespan_ns, unit) : "-");
    row.push_back(hit_text(m.l2_hit_rate));
    row.push_back(hit_text(m.mall_hit_rate));
    for (std::size_t c = 0; c < sweep::kNumTimeCategories; ++c) {
      if (has_part[c]) row.push_back(m.parts_ns[c] ? format_time(*m.parts_ns[c], unit) : "-");
    }
    row.push_back(r.score ? "ok" : "failed");
    t.add_row(std::move(row));
  }
  std::string out = t.render();
  if (ranked.size() > kMaxRows) out += fmt::format("({} more in ranking.csv)\n", ranked.size() - kMaxRows);
  return out;
}

std::string ranking_csv(const tune::TuneSpace& space, const CandidateConfigs& configs, const std::vector<Ranked>& ranked) {
  std::vector<std::vector<std::string>> values;
  std::vector<PointResult> results;
  for (const Ranked& r : ranked) {
    values.push_back(values_text(configs.point(r.candidate)));
    results.push_back(*r.result);
  }
  const sweep::ResultColumns columns = sweep::result_columns(space.keys(), values, results);
  std::string out = "rank," + fmt::format("{}\n", fmt::join(sweep::results_header(space.keys(), columns), ","));
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    std::vector<std::string> cells;
    for (const std::string& cell : sweep::results_row(results[i], values[i], columns, i)) cells.push_back(sweep::csv_cell(cell));
    out += fmt::format("{},{}\n", ranked[i].score ? std::to_string(i + 1) : "", fmt::join(cells, ","));
  }
  return out;
}

}  // namespace

int command_tune(const Args& args) {
  const std::optional<TuneRequest> request = parse_request(args);
  if (!request) return kExitOk;
  const sweep::MpiSession mpi;
  if (mpi.standby()) return kExitOk;
  const auto t0 = std::chrono::steady_clock::now();

  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const tune::TuneSpace space = tune::read_tune_space(request->space, resolver);
  const sweep::Study study = tune::tune_study(space, config_reference(request->config));
  const std::vector<sim::config::Override> sets = sim::config::parse_overrides(request->sets);
  for (const sim::config::Override& o : sets) {
    for (const std::string& key : space.keys()) {
      if (o.key_path == key || o.key_path.starts_with(key + ".") || o.key_path.starts_with(key + "[")) {
        throw sim::config::ConfigError(sim::config::SourceLocation{o.flag, 0, 0}, o.key_path,
                                       fmt::format("the space tunes '{}', so this flag would have no effect", key));
      }
    }
  }
  CandidateConfigs configs(space, study, sets, false);
  std::optional<CandidateConfigs> proxy_configs;
  if (!space.proxy.empty()) proxy_configs.emplace(space, study, sets, true);
  check_space_values(space, configs, proxy_configs ? &*proxy_configs : nullptr);

  const fs::path out_dir = request->out_dir ? fs::path(*request->out_dir) : fs::path(space.name + ".tune");
  sim::io::check_output_folder(out_dir, "--out");
  const unsigned jobs =
      request->jobs.value_or(std::max(1u, sweep::hardware_jobs() / static_cast<unsigned>(mpi.local_size())));
  const InterruptScope interrupt_scope;
  BatchRunner full(configs, space, mpi, out_dir, jobs, request->resume, request->quiet, request->objective, "runs");
  std::optional<BatchRunner> proxy;
  if (proxy_configs) {
    proxy.emplace(*proxy_configs, space, mpi, out_dir / "proxy", jobs, request->resume, request->quiet,
                  request->objective, "proxy runs");
  }
  const tune::Evaluator full_eval = [&](const std::vector<Candidate>& batch) { return full(batch); };
  const tune::Evaluator proxy_eval = [&](const std::vector<Candidate>& batch) { return (*proxy)(batch); };
  tune::SearchSettings settings;
  settings.method = request->method;
  settings.budget = request->budget;
  if (settings.method == tune::SearchMethod::kHalving && !proxy) {
    throw UsageError(fmt::format("--search halving needs a proxy: map in {} (the cheaper run of the screening round)",
                                 space.file.name));
  }
  tune::SearchOutcome outcome;
  try {
    outcome = tune::search(space.axis_sizes(), settings, full_eval, proxy ? &proxy_eval : nullptr);
  } catch (const BatchRunner::Interrupted&) {
    if (mpi.rank() == 0) {
      std::cerr << fmt::format("tune {}: interrupted; the finished runs are in {}; continue with: tessera tune {} --space "
                               "{} --out {} --resume\n",
                               space.name, out_dir.string(), request->config, request->space, out_dir.string());
    }
    return kExitInterrupted;
  }
  if (mpi.rank() != 0) return kExitOk;

  const std::vector<Ranked> ranked = rank(outcome, full.results());
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string method_text =
      outcome.method == tune::SearchMethod::kHalving
          ? fmt::format("halving: {} proxy runs, {} full runs", outcome.proxy_runs, outcome.evaluated.size())
          : fmt::format("{}: {} runs", tune::to_string(outcome.method), outcome.evaluated.size());
  std::cout << fmt::format("tune {}: {} candidates over {} key{}; {} ({:.1f} s)\n", space.name, space.num_candidates(),
                           space.keys().size(), space.keys().size() == 1 ? "" : "s", method_text, wall_s);
  for (const std::string& line : outcome.log) std::cout << "  " << line << "\n";
  std::cout << render_ranking(space, configs, ranked);
  nlohmann::json summary{{"space", space.file.name},
                         {"config", request->config},
                         {"objective", request->objective == Objective::kMakespan ? "makespan" : "l2_hit_rate"},
                         {"search", tune::to_string(outcome.method)},
                         {"budget", request->budget},
                         {"candidates", space.num_candidates()},
                         {"proxy_runs", outcome.proxy_runs},
                         {"full_runs", outcome.evaluated.size()},
                         {"log", outcome.log}};
  write_file_atomically(out_dir / "ranking.csv", ranking_csv(space, configs, ranked));
  if (ranked.empty() || !ranked.front().score) {
    for (const Ranked& r : ranked) std::cerr << fmt::format("point {} failed: {}\n", r.candidate, r.result->error);
    write_file_atomically(out_dir / "tune.json", summary.dump(2) + "\n");
    std::cerr << fmt::format("tune {}: no candidate ran; wrote {}\n", space.name, (out_dir / "ranking.csv").string());
    return kExitRunFailed;
  }
  const Ranked& best = ranked.front();
  const SweepPoint best_point = configs.point(best.candidate);
  const run::RunResult& best_run = *best.result->result;
  const double best_ns = best_run.makespan_ns();
  const TimeUnit unit = pick_time_unit(best_ns);
  std::cout << fmt::format("Best: {} (point {}): makespan {} {}, L2 hit {}%\n", label_of(space, best_point), best.candidate,
                           format_time(best_ns, unit), unit_symbol(unit),
                           hit_text(sweep::metrics_of(best_run).l2_hit_rate));
  nlohmann::json why_json = nlohmann::json::array();
  const auto explain = [&](const char* against, Candidate other) {
    const auto it = full.results().find(other);
    if (other == best.candidate || it == full.results().end() || !it->second.result) return;
    const std::string text = why(best_run, *it->second.result);
    const std::string label = label_of(space, configs.point(other));
    std::cout << fmt::format("  against {} ({}): {}\n", against, label, text);
    why_json.push_back({{"against", against}, {"point", other}, {"label", label}, {"change", text}});
  };
  if (ranked.size() > 1 && ranked[1].score) explain("the runner-up", ranked[1].candidate);
  explain("the start point", 0);
  summary["best"] = {{"point", best.candidate}, {"label", label_of(space, best_point)}, {"makespan_ns", best_ns}};
  for (std::size_t k = 0; k < space.keys().size(); ++k) summary["best"]["values"][space.keys()[k]] = values_text(best_point)[k];
  summary["why"] = why_json;
  const std::string best_yaml = fmt::format(
      "# tessera tune {} --space {}: the best of {} runs ({}, objective {}): {}; makespan {} ns\n{}", request->config,
      request->space, outcome.evaluated.size(), tune::to_string(outcome.method), summary["objective"].get<std::string>(),
      label_of(space, best_point), fmt::format("{:.3f}", best_ns), configs.config_node(best.candidate).to_yaml());
  write_file_atomically(out_dir / "best.yaml", best_yaml);
  write_file_atomically(out_dir / "tune.json", summary.dump(2) + "\n");
  std::size_t failed = 0;
  for (const Ranked& r : ranked) failed += r.score ? 0 : 1;
  std::cerr << fmt::format("tune {}: {} runs ({} could not run) in {:.1f} s; wrote {}, ranking.csv, tune.json and points/\n",
                           space.name, outcome.evaluated.size() + outcome.proxy_runs, failed, wall_s,
                           (out_dir / "best.yaml").string());
  return kExitOk;
}

}  // namespace tessera::app
