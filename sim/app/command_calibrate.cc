// tessera calibrate --measured DIR [--measured DIR ...] --system SYSTEM [--out FILE] [--jobs N] [--no-refine]
//                   [--quiet]
// Fits the parameters that specifications do not give to the microbenchmark results of the HIP
// kernel suite and writes a calibrated system file (docs/validation.md, "Calibration").
#include <filesystem>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/atomic_file.h"
#include "models/system/parameter_ranges.h"
#include "sim/app/calibration/calibrated_system_yaml.h"
#include "sim/app/calibration/calibration.h"
#include "sim/app/calibration/fits.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/max_wall_flag.h"
#include "sim/app/measured/measured_data_error.h"
#include "sim/app/progress.h"
#include "sim/app/sweep/sweep_runner.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"
#include "sim/config/config_loader.h"
#include "sim/config/embedded_files.h"
#include "sim/config/file_resolver.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace tessera::app {
namespace {

using namespace calibration;

// What `base:` must say for the file to find the system from where it is written: a system name
// as is; a path relative to the output file's folder (or as given, when printed).
std::string base_reference(const std::string& system, const std::optional<fs::path>& out) {
  if (sim::config::is_bare_system_name(system) || !out) return system;
  const fs::path folder = fs::absolute(*out).parent_path();
  return fs::absolute(system).lexically_normal().lexically_relative(folder).generic_string();
}

// Reads the file's text back as the config loader will, and checks that every fitted key holds
// the value calibration computed: the file must load with `tessera describe`.
void check_reads_back(const std::string& text, const CalibrationResult& result) {
  sim::config::FileResolver resolver;
  resolver.add_embedded(sim::config::embedded_files());
  const sim::config::ConfigLoader loader(resolver);
  const models::SystemSpec read = models::read_system(loader.load_text(text, "calibrated system", "system"));
  for (const FitOutcome& f : result.fits) {
    for (const FittedValue& v : f.values) {
      if (v.key->get(read) != v.key->get(result.calibrated)) {
        throw std::logic_error(fmt::format("the calibrated file reads {} back as {}, not {}", v.key->path, v.key->get(read),
                                           v.key->get(result.calibrated)));
      }
    }
  }
  const auto& want = result.calibrated.gpu.compute.kernel_efficiency;
  const auto& got = read.gpu.compute.kernel_efficiency;
  bool same = want.size() == got.size();
  for (std::size_t i = 0; same && i < want.size(); ++i) {
    same = want[i].kernel == got[i].kernel && want[i].dtype == got[i].dtype && want[i].efficiency == got[i].efficiency;
  }
  if (!same) throw std::logic_error("the calibrated file reads gpu.compute.kernel_efficiency back differently");
}

std::string summary_table(const CalibrationResult& r) {
  TextTable t({"fit", "key", "value", "direct fit", "points", "direct RMS (rel)", "Tessera RMS (rel)", "Tessera MAPE (%)"});
  for (const FitOutcome& f : r.fits) {
    for (const FittedValue& v : f.values) {
      t.add_row({f.fit, std::string(v.key->path), value_text(*v.key, v.value), value_text(*v.key, v.direct),
                 std::to_string(f.files.size()), residual_text(f.direct, f.unit),
                 f.tessera ? residual_text(*f.tessera, f.unit) : "-", f.tessera ? fmt::format("{:.2f}", 100 * f.tessera->mape) : "-"});
    }
  }
  for (const FitOutcome& f : r.fits) {
    for (const FittedKernelEfficiency& k : f.kernel_efficiency) {
      std::vector<std::string> values;
      for (double e : k.entry.efficiency) values.push_back(fmt::format("{:g}", e));
      t.add_row({f.fit, fmt::format("gpu.compute.kernel_efficiency[{}, {}]", k.entry.kernel, k.entry.dtype),
                 fmt::format("[{}]", fmt::join(values, ", ")), "(measured)", std::to_string(f.files.size()),
                 residual_text(f.direct, f.unit), "-", "-"});
    }
  }
  std::string out = t.render();
  for (const FitOutcome& f : r.fits) {
    for (const FittedValue& v : f.values) {
      if (!v.note.empty()) out += fmt::format("note: {}: {}\n", v.key->path, v.note);
    }
    for (const std::string& n : f.notes) out += fmt::format("note: {}: {}\n", f.fit, n);
  }
  for (const FitOutcome& f : r.fits) {
    for (const NotFitted& n : f.not_fitted) out += fmt::format("not fitted: {}: {}\n", n.key, n.reason);
  }
  for (const UnusedResult& u : r.unused) out += fmt::format("unused: {}: {}\n", u.display_name, u.reason);
  return out;
}

}  // namespace

int command_calibrate(const Args& args) {
  po::options_description opts(
      "tessera calibrate --measured DIR --system SYSTEM [options]\n\nFits the parameters that specifications do not give "
      "(achieved bandwidths, latencies, launch and\ndispatch costs, flag polling, matrix efficiency, the host's collective-library "
      "call) to the\nmicrobenchmark results under DIR (kernel-suite JSON files, searched recursively; pattern\nresults are never "
      "used) and writes a system file: base: SYSTEM plus the fitted keys, each with\nits residual and data. Without --out the "
      "file goes to stdout and the table of fits to stderr.\n\nOptions");
  std::vector<std::string> measured_dirs;
  std::string system, out;
  opts.add_options()("help,h", "show this help")
      ("measured", po::value<std::vector<std::string>>(&measured_dirs)->composing(),
       "folder of kernel-suite result files (required; repeat it to read several, e.g. the inner-loop microbenchmarks "
       "of a card with the same compute units)")
      ("system", po::value<std::string>(&system), "the system to calibrate: a name (h200-2) or a system file (required)")
      ("out", po::value<std::string>(&out), "write the calibrated system file here (atomically)")
      ("jobs,j", po::value<Count<unsigned>>(), "Tessera runs at once while refining (default: the hardware threads)")
      ("max-wall", po::value<std::string>(), "fail when one of Tessera's runs is still going after this much wall-clock "
                                             "time, e.g. 30s (units ps, ns, us, ms, s)")
      ("no-refine", "write the direct least-squares values, without refining them on Tessera's own predictions")
      ("quiet", "no progress line on stderr");
  const auto parsed = parse_command_line(args, opts);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (measured_dirs.empty() || measured_dirs.front().empty()) throw UsageError("calibrate: --measured DIR is required");
  const std::string measured_dir = fmt::format("{}", fmt::join(measured_dirs, ", "));
  if (system.empty()) throw UsageError("calibrate: --system SYSTEM is required");
  if (vm.count("jobs") && vm["jobs"].as<Count<unsigned>>().value == 0) throw UsageError("--jobs must be at least 1");
  if (vm.count("out")) sim::io::check_output_file(out, "--out");
  RefineOptions options;
  options.enabled = vm.count("no-refine") == 0;
  if (vm.count("max-wall")) options.max_wall = parse_max_wall(vm["max-wall"].as<std::string>());
  options.jobs = vm.count("jobs") ? vm["jobs"].as<Count<unsigned>>().value : sweep::hardware_jobs();

  measured::MeasuredSet set = measured::read_measured_folder(measured_dirs.front());
  for (std::size_t i = 1; i < measured_dirs.size(); ++i) {
    set.append(measured::read_measured_folder(measured_dirs[i]));
  }
  ProgressLine progress(ProgressStyle::kSteps, "calibrate", calibration_steps(), progress_wanted(vm.count("quiet") > 0));
  const CalibrationResult result =
      calibrate(set, system, options, [&](std::string_view step) { progress.begin_step(std::string(step)); });
  progress.finish();
  if (result.used_results() == 0) {
    throw measured::MeasuredDataError(measured_dir, "", fmt::format("nothing to calibrate: no fit could use any result ({} microbenchmark "
                                                                    "result(s), {}; {} unused)",
                                                                    set.microbenchmarks().size(), measured::describe_skipped(set.skipped),
                                                                    result.unused.size()));
  }
  const std::optional<fs::path> out_path = out.empty() ? std::nullopt : std::optional<fs::path>(out);
  CalibratedFileNames names;
  names.name = out_path ? out_path->stem().string() : result.base.name + "-calibrated";
  std::string measured_flags;
  for (const std::string& d : measured_dirs) measured_flags += fmt::format(" --measured {}", d);
  names.command = fmt::format("tessera calibrate{} --system {}{}{}", measured_flags, system, out.empty() ? "" : " --out " + out,
                              options.enabled ? "" : " --no-refine");
  names.base = system;  // resolvable from here: what the check reads
  check_reads_back(calibrated_system_yaml(result, names), result);
  names.base = base_reference(system, out_path);
  const std::string text = calibrated_system_yaml(result, names);

  const std::string header = fmt::format("calibrate {}: {} result(s) used; {}; {} pattern result(s) left for validation\n",
                                         result.base.name, result.used_results(), measured::describe_skipped(result.skipped),
                                         result.pattern_results);
  if (out_path) {
    write_file_atomically(*out_path, text);
    std::cout << header << summary_table(result) << fmt::format("wrote {}\n", out);
  } else {
    std::cerr << header << summary_table(result);
    std::cout << text;
  }
  return kExitOk;
}

}  // namespace tessera::app
