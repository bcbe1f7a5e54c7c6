// tessera compare A.yaml B.yaml [--set K=V]... [--out DIR] [--json]
// Runs two configs and shows how the makespan and each tax and work part change from A to B;
// --out writes compare.json and compare.csv for programs and compare.html for people.
#include <filesystem>
#include <future>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/report/compare_html.h"
#include "sim/app/run/run_config_loader.h"
#include "sim/app/run/config_differences.h"
#include "sim/app/run/run_workload.h"
#include "sim/app/sweep/comparison.h"
#include "sim/app/usage_error.h"
#include "sim/io/output_file.h"

namespace po = boost::program_options;

namespace tessera::app {
namespace {

// Which run a side is: its config and what it ran, for the header and compare.json.
// The parameters that tell a side apart: its variant, mapping and microbenchmark op.
std::vector<std::pair<const char*, std::string>> side_details(const run::RunResult& r) {
  std::vector<std::pair<const char*, std::string>> out;
  if (const auto variant = r.variant()) out.emplace_back("variant", *variant);
  if (const auto mapping = r.mapping()) out.emplace_back("mapping", *mapping);
  if (r.result.measurement) out.emplace_back("op", r.result.measurement->op);
  return out;
}

nlohmann::json side_json(const std::string& config, const run::RunResult& r) {
  nlohmann::json j{{"config", config}, {"system", r.system}, {"workload", r.workload}};
  for (const auto& [key, value] : side_details(r)) j[key] = value;
  j["makespan_ns"] = r.makespan_ns();
  return j;
}

std::string side_line(const char* name, const std::string& config, const run::RunResult& r) {
  std::string what = fmt::format("{} on {}", r.workload, r.system);
  for (const auto& [key, value] : side_details(r)) what += fmt::format(", {} {}", key, value);
  return fmt::format("{}: {} ({})\n", name, config, what);
}

// The rows of compare.html: compare.json's quantities, named without their unit.
std::vector<report::CompareQuantity> html_quantities(const std::vector<sweep::ComparisonRow>& rows) {
  std::vector<report::CompareQuantity> out;
  for (const sweep::ComparisonRow& r : rows) {
    std::string name = r.quantity;
    if (name.ends_with("_ns")) name.resize(name.size() - 3);
    out.push_back({name, r.is_tax, r.a_ns, r.b_ns});
  }
  return out;
}

// What the configs differ in, one key per line; long lists show their first keys.
std::string differences_text(const std::vector<run::ConfigDifference>& differences) {
  constexpr std::size_t kMaxLines = 20;
  if (differences.empty()) return "A and B are the same configuration.\n";
  std::string out = fmt::format("A and B differ in {} key{}:\n", differences.size(), differences.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < differences.size() && i < kMaxLines; ++i) {
    out += fmt::format("  {}: {} -> {}\n", differences[i].key, differences[i].a_text, differences[i].b_text);
  }
  if (differences.size() > kMaxLines) out += fmt::format("  ({} more in --json)\n", differences.size() - kMaxLines);
  return out;
}

// The files of --out DIR, replaced as one by the next comparison's.
bool is_compare_output(const std::string& name) { return name == "compare.json" || name == "compare.csv" || name == "compare.html"; }

}  // namespace

int command_compare(const Args& args) {
  po::options_description opts(
      "tessera compare A.yaml B.yaml [options]\n\nRuns both configs and shows how the makespan and each of its parts "
      "(work and taxes) change from A to B.\n\nOptions");
  std::vector<std::string> sets;
  std::vector<std::string> configs;
  std::string out_dir;
  opts.add_options()("help,h", "show this help")
      ("set", po::value<std::vector<std::string>>(&sets)->composing(), "override a key of both configs: --set key.path=value (repeatable)")
      ("out", po::value<std::string>(&out_dir), "write compare.json, compare.csv and compare.html into this folder")
      ("json", "print compare.json on stdout instead of the table")
      ("configs", po::value<std::vector<std::string>>(&configs), "the two run configs (positional)");
  po::positional_options_description pos;
  pos.add("configs", 2);
  const auto parsed = parse_command_line(args, opts, pos);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (configs.size() != 2) throw UsageError("compare: expected two run configs (tessera compare A.yaml B.yaml)");
  if (vm.count("out")) sim::io::check_output_folder(out_dir, "--out", is_compare_output);

  // Both configs are checked before either runs; the two runs share nothing, so they run at once.
  const run::RunSpec spec_a = run::load_run_spec(configs[0], sets);
  const run::RunSpec spec_b = run::load_run_spec(configs[1], sets);
  auto run_b = std::async(std::launch::async, [&spec_b] { return run::run_workload(spec_b); });
  const run::RunResult a = run::run_workload(spec_a);
  const run::RunResult b = run_b.get();

  const std::vector<sweep::ComparisonRow> rows = sweep::compare_runs(a, b);
  const std::vector<run::ConfigDifference> differences = run::config_differences(spec_a, spec_b);
  nlohmann::json differences_json = nlohmann::json::array();
  for (const run::ConfigDifference& d : differences) differences_json.push_back({{"key", d.key}, {"a", d.a_text}, {"b", d.b_text}});
  nlohmann::json report{{"a", side_json(configs[0], a)}, {"b", side_json(configs[1], b)},
                        {"differences", std::move(differences_json)},
                        {"quantities", sweep::comparison_rows_json(rows)}};
  if (!out_dir.empty()) {
    sim::io::StagedFolder folder{std::filesystem::path(out_dir)};
    folder.write("compare.json", report.dump(2) + "\n");
    folder.write("compare.csv", sweep::comparison_csv(rows));
    folder.write("compare.html", report::compare_html({configs[0], a}, {configs[1], b}, differences, html_quantities(rows)));
    folder.publish(is_compare_output);
  }
  if (vm.count("json")) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << side_line("A", configs[0], a) << side_line("B", configs[1], b) << differences_text(differences) << "\n"
              << sweep::comparison_table(rows);
  }
  return kExitOk;
}

}  // namespace tessera::app
