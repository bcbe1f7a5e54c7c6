// tessera validate --measured DIR --system SYSTEM [--json] [--out DIR] [--max-mape PERCENT]
//                  [--max-collectives-mape PERCENT] [--jobs N] [--quiet]
// Runs Tessera on every measured pattern case and compares its prediction with the measurement
// (docs/validation.md, "Validation"); the collective library's results (nccl_*) are predicted with
// Tessera's model of the library and reported apart (validation/collective_cases.h).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "models/system/system_loader.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/max_wall_flag.h"
#include "sim/app/measured/measured_data_error.h"
#include "sim/app/progress.h"
#include "sim/app/run/run_config_loader.h"
#include "sim/app/sweep/sweep_runner.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"
#include "sim/io/output_file.h"
#include "sim/app/validation/collective_cases.h"
#include "sim/app/validation/validation_documents.h"
#include "sim/app/validation/validation_tables.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace tessera::app {
namespace {

using namespace validation;

std::string render(const CellTable& table) {
  TextTable t(table.header);
  for (const auto& row : table.rows) t.add_row(row);
  return t.render();
}

// The files of --out DIR, replaced as one by the next validation's.
bool is_validation_output(const std::string& name) {
  return name == "validation.json" || name == "report.md" || name == "report.html";
}

}  // namespace

int command_validate(const Args& args) {
  po::options_description opts(
      "tessera validate --measured DIR --system SYSTEM [options]\n\nRuns Tessera on every passed pattern result under DIR "
      "(kernel-suite JSON files, searched\nrecursively; the file's tessera.workload on SYSTEM) and compares the predicted "
      "makespan with\nthe measured mean time: a table, MAPE, worst error and whether the fastest variant is predicted.\n"
      "Results of the collective library (cases nccl_*) run as kind collective with library nccl and\nhost one_thread "
      "and are reported apart: their own table and MAPEs (from 64 KiB up, and below).\n\nOptions");
  std::string measured_dir, system, out;
  opts.add_options()("help,h", "show this help")
      ("measured", po::value<std::string>(&measured_dir), "folder of kernel-suite result files (required)")
      ("system", po::value<std::string>(&system), "the system to predict with: a name or a system file, e.g. a calibrated one (required)")
      ("json", "print validation.json on stdout instead of the tables")
      ("out", po::value<std::string>(&out), "write report.md, validation.json and report.html into this folder")
      ("max-mape", po::value<double>(), "exit 1 when the pattern cases' MAPE exceeds this many percent (for CI); the collectives are not judged")
      ("max-collectives-mape", po::value<double>(), "exit 1 when the collective cases' MAPE from 64 KiB exceeds this many percent (for CI)")
      ("jobs,j", po::value<Count<unsigned>>(), "cases run at once (default: the hardware threads)")
      ("max-wall", po::value<std::string>(), "stop any case still running after this much wall-clock time, e.g. 30s "
                                             "(units ps, ns, us, ms, s); the case is reported as failed")
      ("quiet", "no progress line on stderr");
  const auto parsed = parse_command_line(args, opts);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (measured_dir.empty()) throw UsageError("validate: --measured DIR is required");
  if (system.empty()) throw UsageError("validate: --system SYSTEM is required");
  if (vm.count("jobs") && vm["jobs"].as<Count<unsigned>>().value == 0) throw UsageError("--jobs must be at least 1");
  if (vm.count("max-mape") && !(vm["max-mape"].as<double>() >= 0)) throw UsageError("--max-mape must be a percentage of 0 or more");
  if (vm.count("max-collectives-mape") && !(vm["max-collectives-mape"].as<double>() >= 0)) {
    throw UsageError("--max-collectives-mape must be a percentage of 0 or more");
  }
  const unsigned jobs = vm.count("jobs") ? vm["jobs"].as<Count<unsigned>>().value : sweep::hardware_jobs();
  if (vm.count("out")) sim::io::check_output_folder(out, "--out", is_validation_output);
  const std::optional<std::chrono::nanoseconds> max_wall =
      vm.count("max-wall") ? std::optional(parse_max_wall(vm["max-wall"].as<std::string>())) : std::nullopt;

  // Everything is read and checked before anything runs: a bad file or workload map is exit 2.
  const measured::MeasuredSet set = measured::read_measured_folder(measured_dir);
  ValidationReport report;
  report.system_argument = system;
  const models::SystemSpec system_spec = models::load_system_spec(system);
  report.system_name = system_spec.name;
  report.measured_folder = measured_dir;
  report.skipped = set.skipped;
  // The collective library's results are validated below; the other microbenchmarks are calibration data.
  for (const measured::MeasuredCase* c : set.microbenchmarks()) report.microbenchmark_results += is_library_collective(*c) ? 0 : 1;
  if (vm.count("max-mape")) report.max_mape_percent = vm["max-mape"].as<double>();
  PreparedCases prepared = prepare_cases(set, system, system_spec.num_gpus);
  report.skipped.insert(report.skipped.end(), prepared.too_large.begin(), prepared.too_large.end());
  PreparedCollectives collectives = prepare_collective_cases(set, system, system_spec.num_gpus);
  report.skipped.insert(report.skipped.end(), collectives.too_large.begin(), collectives.too_large.end());
  if (prepared.cases.empty() && collectives.cases.empty()) {
    throw measured::MeasuredDataError(measured_dir, "", fmt::format("no passed pattern results (nor collective-library results, cases "
                                                                    "nccl_*) to validate on this system ({} microbenchmark result(s), {})",
                                                                    report.microbenchmark_results, measured::describe_skipped(report.skipped)));
  }
  for (run::RunSpec& spec : prepared.runs) spec.options.max_wall = max_wall;
  for (run::RunSpec& spec : collectives.runs) spec.options.max_wall = max_wall;
  ProgressLine progress(ProgressStyle::kBar, "cases", prepared.cases.size() + collectives.cases.size(),
                        progress_wanted(vm.count("quiet") > 0));
  predict_cases(prepared, jobs, [&](bool failed) { progress.advance(failed); });
  predict_collective_cases(collectives, jobs, [&](bool failed) { progress.advance(failed); });
  progress.finish();
  report.cases = std::move(prepared.cases);
  report.groups = group_variants(report.cases);
  report.summary = summarize(report.cases, report.groups);
  report.collectives = std::move(collectives.cases);
  report.collective_summary = summarize_collectives(report.collectives);

  if (!out.empty()) {
    sim::io::StagedFolder folder{fs::path(out)};
    folder.write("validation.json", validation_json(report).dump(2) + "\n");
    folder.write("report.md", validation_markdown(report));
    folder.write("report.html", validation_html(report));
    folder.publish(is_validation_output);
  }
  if (vm.count("json")) {
    std::cout << validation_json(report).dump(2) << "\n";
  } else {
    std::cout << fmt::format("Validation of {} ({}) against {}\n\n", report.system_name, system, measured_dir);
    if (!report.cases.empty()) std::cout << render(cases_table(report));
    if (!report.groups.empty()) std::cout << "\nVariants (fastest first):\n" << render(groups_table(report));
    if (!report.collectives.empty()) {
      std::cout << (report.cases.empty() ? "" : "\n")
                << "Collectives (the library's measured time per collective against Tessera's model of the library; forced: "
                   "NCCL_ALGO/NCCL_PROTO of the measurement):\n"
                << render(collectives_table(report));
    }
    std::cout << "\n";
    for (const std::string& line : summary_lines(report)) std::cout << line << "\n";
    if (!out.empty()) std::cout << fmt::format("wrote {}/: report.md, validation.json, report.html\n", out);
  }
  int exit_code = kExitOk;
  for (const ValidationCase& c : report.cases) {
    if (!c.predicted_ns) {
      std::cerr << fmt::format("tessera validate: {}: Tessera could not run it: {}\n", c.source->display_name, c.error);
      exit_code = kExitRunFailed;
    }
  }
  for (const CollectiveCase& c : report.collectives) {
    if (!c.predicted_ns) {
      std::cerr << fmt::format("tessera validate: {}: Tessera could not run it: {}\n", c.source->display_name, c.error);
      exit_code = kExitRunFailed;
    }
  }
  if (report.max_mape_percent && report.cases.empty()) {
    std::cerr << fmt::format("tessera validate: --max-mape {:g}% judges the pattern cases, and there are none\n", *report.max_mape_percent);
    exit_code = kExitRunFailed;
  } else if (report.max_mape_percent && (!report.summary.mape_percent || *report.summary.mape_percent > *report.max_mape_percent)) {
    std::cerr << fmt::format("tessera validate: MAPE {} exceeds --max-mape {:g}%\n",
                             report.summary.mape_percent ? fmt::format("{:.2f}%", *report.summary.mape_percent) : "n/a",
                             *report.max_mape_percent);
    exit_code = kExitRunFailed;
  }
  if (vm.count("max-collectives-mape")) {
    const double limit = vm["max-collectives-mape"].as<double>();
    const std::optional<double>& mape = report.collective_summary.large.mape_percent;
    if (!mape || *mape > limit) {
      std::cerr << fmt::format("tessera validate: collectives' MAPE from 64 KiB {} exceeds --max-collectives-mape {:g}%\n",
                               mape ? fmt::format("{:.2f}%", *mape) : "n/a (no collective case from 64 KiB)", limit);
      exit_code = kExitRunFailed;
    }
  }
  return exit_code;
}

}  // namespace tessera::app
