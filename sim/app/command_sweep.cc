// tessera sweep STUDY.yaml [--jobs N] [--out DIR] [--resume] [--set K=V]... [--points A:B] [--max-wall DURATION]
//                          [--uncertainty N] [--quiet]
// Runs every point of a what-if study (docs/sweeps.md) on local cores, and over MPI ranks when
// launched by mpirun; writes results.csv, report.html and points/NNNN.json. SIGINT or SIGTERM
// stops it cleanly (sim/app/interrupt.h): finished points are kept and tabulated, exit 130.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/atomic_file.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/interrupt.h"
#include "sim/app/max_wall_flag.h"
#include "sim/app/progress.h"
#include "sim/app/run/stop_message.h"
#include "sim/app/sweep/mpi_session.h"
#include "sim/app/sweep/point_config.h"
#include "sim/app/sweep/point_range.h"
#include "sim/app/sweep/point_store.h"
#include "sim/app/sweep/results_csv.h"
#include "sim/app/sweep/study.h"
#include "sim/app/sweep/summary_metrics.h"
#include "sim/app/sweep/sweep_points.h"
#include "sim/app/sweep/sweep_report.h"
#include "sim/app/sweep/sweep_runner.h"
#include "sim/app/text_table.h"
#include "sim/app/time_unit.h"
#include "sim/app/uncertainty/parameter_sampling.h"
#include "sim/app/usage_error.h"
#include "sim/config/config_error.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace tessera::app {
namespace {

using namespace sweep;

// Everything known before any point runs: the study, its points and their checked configs.
struct PreparedStudy {
  Study study;
  std::vector<SweepPoint> points;
  std::vector<PreparedPoint> configs;
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // values[i][k]: point i's value of keys[k], as text
  std::vector<std::string> labels;
  PointRange range;
  std::vector<sim::config::Override> overrides;  // the --set flags, applied to every point
};

PreparedStudy prepare_study(const std::string& study_name, const std::vector<std::string>& sets,
                            const std::optional<std::string>& points_flag) {
  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  PreparedStudy s{read_study(study_name, resolver), {}, {}, {}, {}, {}, {}, {}};
  s.points = expand_points(s.study);
  s.keys = s.study.swept_keys();
  s.overrides = sim::config::parse_overrides(sets);
  const std::vector<sim::config::Override>& overrides = s.overrides;
  for (const sim::config::Override& o : overrides) {
    for (const std::string& key : s.keys) {
      // The axis is applied after --set, so such a flag would change nothing: say so.
      if (o.key_path == key || o.key_path.starts_with(key + ".") || o.key_path.starts_with(key + "[")) {
        throw sim::config::ConfigError(sim::config::SourceLocation{o.flag, 0, 0}, o.key_path,
                                       fmt::format("the study sweeps '{}', so this flag would have no effect", key));
      }
    }
  }
  s.configs = prepare_points(s.study, s.points, overrides);
  const std::vector<std::string> names = label_names(s.keys);
  for (const SweepPoint& p : s.points) {
    std::vector<std::string> texts;
    for (const auto& v : p.values) texts.push_back(compact_text(v));
    s.values.push_back(std::move(texts));
    s.labels.push_back(point_label(p, names));
  }
  s.range = PointRange{0, s.points.size(), true};
  if (points_flag) s.range = parse_point_range(*points_flag, s.points.size());
  return s;
}

// The terminal's view of the results: the swept values, the makespan, the taxes where the
// summaries have them (every time in one unit, from the longest makespan shown), and the status;
// long studies show their first rows.
std::string render_results(const PreparedStudy& s, const std::vector<PointResult>& results) {
  constexpr std::size_t kMaxRows = 100;
  bool any_taxes = false;
  double max_ns = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SummaryMetrics m = metrics_of(results[i].result);
    for (std::size_t c = 0; c < kNumTimeCategories; ++c) {
      any_taxes = any_taxes || (workloads::replay::is_tax(time_category(c)) && m.parts_ns[c].has_value());
    }
    if (i < kMaxRows) {
      max_ns = std::max(max_ns, m.makespan_ns.value_or(0.0));
      for (const std::optional<double>& part : m.parts_ns) max_ns = std::max(max_ns, part.value_or(0.0));
    }
  }
  const TimeUnit unit = pick_time_unit(max_ns);
  // Collectives read as nccl-tests prints them: time per iteration, algbw, busbw per point.
  bool any_collective = false;
  for (const PointResult& r : results) any_collective = any_collective || metrics_of(r.result).time_us.has_value();
  std::vector<std::string> header{"point"};
  for (const std::string& name : label_names(s.keys)) header.push_back(name);
  if (any_collective) header.insert(header.end(), {"time (us)", "algbw (GB/s)", "busbw (GB/s)"});
  header.push_back(with_unit("makespan", unit));
  // (results may hold only some points, after an interrupt: rows are named by r.index.)
  std::vector<std::size_t> taxes;
  for (std::size_t c = 0; c < kNumTimeCategories && any_taxes; ++c) {
    if (!workloads::replay::is_tax(time_category(c))) continue;
    taxes.push_back(c);
    header.push_back(with_unit(workloads::replay::to_string(time_category(c)), unit));
  }
  header.emplace_back("L2 hit (%)");
  header.emplace_back("status");
  TextTable t(header);
  for (std::size_t i = 0; i < results.size() && i < kMaxRows; ++i) {
    const SummaryMetrics m = metrics_of(results[i].result);
    const std::size_t point = results[i].index;
    std::vector<std::string> row{std::to_string(point)};
    row.insert(row.end(), s.values[point].begin(), s.values[point].end());
    if (any_collective) {
      const auto fixed2 = [](const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : std::string("-"); };
      row.insert(row.end(), {fixed2(m.time_us), fixed2(m.algbw_GBps), fixed2(m.busbw_GBps)});
    }
    row.push_back(m.makespan_ns ? format_time(*m.makespan_ns, unit) : "-");
    for (std::size_t c : taxes) row.push_back(m.parts_ns[c] ? format_time(*m.parts_ns[c], unit) : "-");
    row.push_back(m.l2_hit_rate ? fmt::format("{:.1f}", 100 * *m.l2_hit_rate) : "-");
    row.push_back(results[i].ok ? "ok" : "failed");
    t.add_row(std::move(row));
  }
  std::string out = t.render();
  if (results.size() > kMaxRows) out += fmt::format("({} more points in results.csv)\n", results.size() - kMaxRows);
  return out;
}

// --dry-run: the points and their values, every config checked.
std::string render_points(const PreparedStudy& s) {
  std::vector<std::string> header{"point"};
  for (const std::string& key : s.keys) header.push_back(key);
  TextTable t(header);
  for (std::size_t i = s.range.begin; i < s.range.end; ++i) {
    std::vector<std::string> row{std::to_string(i)};
    row.insert(row.end(), s.values[i].begin(), s.values[i].end());
    t.add_row(std::move(row));
  }
  return t.render() + fmt::format("{} of {} points; every point's config is valid\n", s.range.end - s.range.begin,
                                  s.points.size());
}

// The point's config with each parameter of its system's ranges drawn for sample `sample`, as
// `tessera run --uncertainty` draws it (sim/app/uncertainty/parameter_sampling.h).
run::RunSpec sampled_spec(const PreparedStudy& s, std::size_t point, std::size_t sample) {
  const run::RunSpec& nominal = s.configs[point].spec;
  std::vector<sim::config::Override> overrides = s.overrides;
  for (const std::string& o :
       uncertainty::sample_overrides(nominal.parameter_ranges, nominal.options.seed, sample)) {
    overrides.push_back(sim::config::parse_override(o));
  }
  run::RunSpec spec = prepare_point(s.study, s.points[point], overrides).spec;
  spec.options.max_wall = nominal.options.max_wall;
  spec.options.stop_requested = nominal.options.stop_requested;
  return spec;
}

// --uncertainty N: the point's N sampled systems, one after another, their makespans kept in its
// result; a sample that fails (or is stopped) fails (or abandons) the point.
void run_samples(PointResult& r, const PreparedStudy& s, std::size_t point, std::size_t samples) {
  for (std::size_t sample = 0; sample < samples; ++sample) {
    PointResult one;
    try {
      one = run_point(point, sampled_spec(s, point, sample));
    } catch (const std::exception& e) {
      one.error = e.what();
    }
    r.wall_s += one.wall_s;
    if (!one.ok) {
      r.ok = false;
      r.abandoned = one.abandoned;
      r.error = fmt::format("uncertainty sample {}: {}", sample, one.error);
      r.result.reset();
      return;
    }
    r.result->sampled_makespans_ns.push_back(one.result->makespan_ns());
  }
}

// Runs (or, with --resume, reads back) this rank's share of the selected points: point i
// belongs to rank i mod size. Each finished point is written to DIR/points/ at once. After an
// interrupt, the result holds the finished points only (in point order): those never started
// and those abandoned while running are left out, and have no file.
std::vector<PointResult> run_my_points(const PreparedStudy& s, const MpiSession& mpi, const fs::path& out_dir,
                                       unsigned jobs, bool resume, bool quiet, std::size_t samples) {
  std::vector<std::size_t> mine;
  for (std::size_t i = s.range.begin; i < s.range.end; ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(mpi.size())) == mpi.rank()) mine.push_back(i);
  }
  std::vector<std::optional<PointResult>> done(mine.size());
  std::vector<std::size_t> to_run;
  for (std::size_t j = 0; j < mine.size(); ++j) {
    const std::size_t i = mine[j];
    if (resume) done[j] = read_finished_point(point_file(out_dir, i, s.points.size()), i, s.configs[i].config_hash);
    if (!done[j]) to_run.push_back(j);
  }
  const std::string what = mpi.size() > 1 ? fmt::format("points on rank 0 of {}", mpi.size()) : "points";
  ProgressLine progress(ProgressStyle::kBar, what, to_run.size(), mpi.rank() == 0 && progress_wanted(quiet));
  run_parallel(to_run.size(), jobs, [&](std::size_t n) {
    const std::size_t j = to_run[n];
    const std::size_t i = mine[j];
    PointResult r = run_point(i, s.configs[i].spec);
    if (r.ok && samples > 0) run_samples(r, s, i, samples);
    if (r.abandoned) return;  // not finished: no file, no row, no tick of the progress bar
    if (r.ok) {
      try {
        write_point_file(point_file(out_dir, i, s.points.size()), r, s.keys, s.values[i], s.configs[i].config_hash);
      } catch (const std::exception& e) {
        r.ok = false;
        r.error = fmt::format("the point ran but its summary could not be written: {}", e.what());
        r.result.reset();
      }
    }
    progress.advance(!r.ok);
    done[j] = std::move(r);  // each task owns its own slot
  }, &interrupt_flag());
  progress.finish();
  std::vector<PointResult> out;
  for (auto& r : done) {
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

// Rank 0 gets every rank's results, in point order; other ranks get nothing back.
std::vector<PointResult> gather(const MpiSession& mpi, std::vector<PointResult> mine, const PreparedStudy& s,
                                const fs::path& out_dir) {
  if (mpi.size() == 1) return mine;
  nlohmann::json payload = nlohmann::json::array();
  for (const PointResult& r : mine) payload.push_back(to_json(r));
  const std::vector<std::string> all = mpi.gather_to_root(payload.dump());
  if (mpi.rank() != 0) return {};
  std::vector<PointResult> results;
  for (std::size_t rank = 0; rank < all.size(); ++rank) {
    for (const nlohmann::json& j : nlohmann::json::parse(all[rank])) {
      PointResult r = point_result_from_json(j);
      // Without a shared folder the other ranks' point files are elsewhere: keep a copy here.
      const fs::path file = point_file(out_dir, r.index, s.points.size());
      if (rank != 0 && r.ok && !fs::exists(file)) {
        write_point_file(file, r, s.keys, s.values[r.index], s.configs[r.index].config_hash);
      }
      results.push_back(std::move(r));
    }
  }
  std::sort(results.begin(), results.end(), [](const PointResult& a, const PointResult& b) { return a.index < b.index; });
  return results;
}

// What the flags ask for.
struct SweepRequest {
  std::string study_name;
  std::vector<std::string> sets;
  std::optional<unsigned> jobs;
  std::optional<std::string> out_dir;
  bool resume = false;
  std::optional<std::string> points;
  std::optional<std::chrono::nanoseconds> max_wall;
  bool dry_run = false;
  bool quiet = false;
  std::size_t uncertainty = 0;  // --uncertainty N: sampled systems per point
};

// nullopt when --help was asked for (and printed).
std::optional<SweepRequest> parse_request(const Args& args) {
  po::options_description opts(
      "tessera sweep STUDY.yaml [options]\n\nRuns every point of a what-if study (a base run config and grid:/zip: "
      "axes; docs/sweeps.md)\non local cores, and over the ranks of an MPI launch (mpirun -np K tessera sweep ...).\n"
      "Writes DIR/results.csv, DIR/report.html and DIR/points/NNNN.json. Ctrl-C (SIGINT) or SIGTERM stops it\n"
      "cleanly: finished points are kept and tabulated, exit code 130; --resume then finishes the study.\n\nOptions");
  SweepRequest request;
  opts.add_options()("help,h", "show this help")
      ("jobs,j", po::value<Count<unsigned>>(), "points run at once on this machine (default: its hardware threads, shared "
                                        "between the MPI ranks on it)")
      ("out", po::value<std::string>(), "output folder (default: ./STUDY.sweep, STUDY the study file's name)")
      ("resume", "keep the points whose points/NNNN.json exists for the same config; run only the others")
      ("set", po::value<std::vector<std::string>>(&request.sets)->composing(),
       "override a key of every point's config: --set key.path=value (repeatable; not a swept key)")
      ("points", po::value<std::string>(), "run only points A to B-1 (A:B), writing only their points/ files "
                                           "(a Slurm array task; merge with --resume)")
      ("max-wall", po::value<std::string>(), "stop any point still running after this much wall-clock time, e.g. "
                                             "600s (units ps, ns, us, ms, s); that point fails")
      ("dry-run", "check every point's config and list the points; run nothing")
      ("uncertainty", po::value<Count<std::size_t>>(),
       "also run each point on N systems with the system file's uncertainty: ranges drawn (as tessera run "
       "--uncertainty draws them); results.csv gains each point's makespan quantiles and, where the study sweeps "
       "the variant, how often the point was the fastest of its variants")
      ("quiet", "no progress bar on stderr")
      ("study", po::value<std::string>(), "the study file (also the first positional argument)");
  po::positional_options_description pos;
  pos.add("study", 1);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return std::nullopt;
  const po::variables_map& vm = *parsed;
  if (!vm.count("study")) throw UsageError("sweep: missing the study file (tessera sweep STUDY.yaml)");
  if (vm.count("jobs") && vm["jobs"].as<Count<unsigned>>().value == 0) throw UsageError("--jobs must be at least 1");
  request.study_name = vm["study"].as<std::string>();
  if (vm.count("jobs")) request.jobs = vm["jobs"].as<Count<unsigned>>().value;
  if (vm.count("out")) request.out_dir = vm["out"].as<std::string>();
  request.resume = vm.count("resume") > 0;
  if (vm.count("points")) request.points = vm["points"].as<std::string>();
  if (vm.count("max-wall")) request.max_wall = parse_max_wall(vm["max-wall"].as<std::string>());
  request.dry_run = vm.count("dry-run") > 0;
  if (vm.count("uncertainty")) {
    request.uncertainty = vm["uncertainty"].as<Count<std::size_t>>().value;
    if (request.uncertainty == 0) throw UsageError("--uncertainty must be at least 1 (samples)");
  }
  request.quiet = vm.count("quiet") > 0;
  return request;
}

// Rank 0's account of the finished sweep: the failures, the tables and files (a whole study),
// the summary line; returns the exit code.
int report_sweep(const SweepRequest& request, const PreparedStudy& s, const fs::path& out_dir, const MpiSession& mpi,
                 const std::vector<PointResult>& results, double wall_s) {
  // A signal that came after the last point finished interrupted nothing.
  const std::size_t selected = s.range.end - s.range.begin;
  const bool interrupted = interrupt_requested() && results.size() < selected;
  std::size_t failed = 0, resumed = 0;
  for (const PointResult& r : results) {
    failed += r.ok ? 0 : 1;
    resumed += r.resumed ? 1 : 0;
    if (!r.ok) std::cerr << fmt::format("point {} ({}) failed: {}\n", r.index, s.labels[r.index], r.error);
  }
  const std::string counts = fmt::format("{} run, {} resumed, {} failed", results.size() - resumed, resumed, failed);
  const std::string resume_hint =
      fmt::format("tessera sweep {} --out {} --resume", request.study_name, out_dir.string());
  if (!s.range.whole) {
    if (interrupted) {
      std::cerr << fmt::format("sweep {}: interrupted: {} of points {} to {} finished ({}) in {:.1f} s; their "
                               "summaries are in {}; finish the slice with: {} --points {}:{}\n",
                               s.study.name, results.size(), s.range.begin, s.range.end - 1, counts, wall_s,
                               (out_dir / "points").string(), resume_hint, s.range.begin, s.range.end);
      return kExitInterrupted;
    }
    std::cerr << fmt::format("sweep {}: points {} to {} of {} ({}) in {:.1f} s; their summaries are in {}; gather "
                             "them with: {}\n",
                             s.study.name, s.range.begin, s.range.end - 1, s.points.size(), counts, wall_s,
                             (out_dir / "points").string(), resume_hint);
    return failed > 0 ? kExitRunFailed : kExitOk;
  }
  // After an interrupt `results` holds the finished points only: the tables list those.
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> values;
  for (const PointResult& r : results) {
    labels.push_back(s.labels[r.index]);
    values.push_back(s.values[r.index]);
  }
  write_file_atomically(out_dir / "results.csv", results_csv(s.keys, values, results));
  write_file_atomically(out_dir / "report.html", sweep_report_html(s.study, labels, values, results));
  std::cout << render_results(s, results);
  if (interrupted) {
    std::cerr << fmt::format("sweep {}: interrupted: partial results: {} of {} points finished ({}) in {:.1f} s; "
                             "results.csv and report.html list those only; finish the study with: {}\n",
                             s.study.name, results.size(), selected, counts, wall_s, resume_hint);
    return kExitInterrupted;
  }
  std::cerr << fmt::format("sweep {}: {} points ({}) in {:.1f} s{}; wrote {}\n", s.study.name, results.size(), counts,
                           wall_s, mpi.size() > 1 ? fmt::format(" on {} ranks", mpi.size()) : "",
                           (out_dir / "results.csv").string() + ", report.html and points/");
  return failed > 0 ? kExitRunFailed : kExitOk;
}

}  // namespace

// parse -> plan (every point's config checked) -> execute (this rank's points, gathered on
// rank 0) -> report.
int command_sweep(const Args& args) {
  const std::optional<SweepRequest> request = parse_request(args);
  if (!request) return kExitOk;
  const MpiSession mpi;
  if (mpi.standby()) return kExitOk;
  const auto t0 = std::chrono::steady_clock::now();
  // Every point is checked before any runs. Every rank checks the same study and fails the
  // same way; rank 0 alone reports it.
  PreparedStudy s;
  try {
    s = prepare_study(request->study_name, request->sets, request->points);
  } catch (...) {
    if (mpi.rank() != 0) return kExitBadInput;
    throw;
  }
  if (request->dry_run) {
    if (mpi.rank() == 0) std::cout << render_points(s);
    return kExitOk;
  }
  const fs::path out_dir = request->out_dir ? fs::path(*request->out_dir) : fs::path(s.study.name + ".sweep");
  sim::io::check_output_folder(out_dir, "--out");  // before any point runs, not after the last
  const unsigned jobs = request->jobs.value_or(std::max(1u, hardware_jobs() / static_cast<unsigned>(mpi.local_size())));
  // The limits each point runs under: neither enters the config hash (run_spec.h).
  for (PreparedPoint& point : s.configs) {
    point.spec.options.max_wall = request->max_wall;
    point.spec.options.stop_requested = &interrupt_flag();
  }
  if (request->uncertainty > 0) {
    // Every range's bounds checked before any point runs; a point's samples are part of its result,
    // so --resume keeps a point only when it was run with as many.
    for (std::size_t i = s.range.begin; i < s.range.end; ++i) {
      uncertainty::check_range_bounds(point_config_node(s.study, s.points[i], s.overrides).at("system"),
                                      s.configs[i].spec.parameter_ranges);
      s.configs[i].config_hash = fnv1a_hex(s.configs[i].config_hash + fmt::format(" uncertainty {}", request->uncertainty));
    }
  }

  // From here on SIGINT/SIGTERM stop the sweep cleanly instead of killing it.
  const InterruptScope interrupt_scope;
  std::vector<PointResult> mine =
      run_my_points(s, mpi, out_dir, jobs, request->resume, request->quiet, request->uncertainty);
  bool my_failures = false;
  for (const PointResult& r : mine) my_failures = my_failures || !r.ok;
  const std::vector<PointResult> results = gather(mpi, std::move(mine), s, out_dir);
  if (mpi.rank() != 0) return interrupt_requested() ? kExitInterrupted : my_failures ? kExitRunFailed : kExitOk;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report_sweep(*request, s, out_dir, mpi, results, wall_s);
}

}  // namespace tessera::app
