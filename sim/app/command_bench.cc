// tessera bench phold --lps N --events-per-lp M --remote P --end-time T [--seed S] [--json] [--bare]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "workloads/phold/phold_engine.h"
#include "sim/app/command_line.h"
#include "sim/app/commands.h"
#include "sim/app/exit_codes.h"
#include "sim/app/text_table.h"
#include "sim/app/usage_error.h"
#include "sim/config/units.h"

namespace po = boost::program_options;

namespace tessera::app {
namespace {

// Wall-clock fields are named wall_* (only they differ between two runs of the same inputs).
nlohmann::json result_json(const workloads::phold::PholdResult& r) {
  return {{"events", r.events},
          {"wall_s", r.wall_s},
          {"wall_events_per_s", r.events_per_s()},
          {"final_time_ps", r.final_time_ps}};
}

int bench_phold(const Args& args) {
  po::options_description opts(
      "tessera bench phold [options]\n\nPHOLD on the event engine: N processes, M initial events each; each event sends "
      "one new event\nto a random process with probability P (else to itself), delay = 1 ns + exponential (mean 9 "
      "ns).\n\nOptions");
  workloads::phold::PholdParams p;
  std::string end_time = "1 ms";
  opts.add_options()("help,h", "show this help")
      ("lps", po::value<Count<std::uint32_t>>(), "logical processes N (default 256)")
      ("events-per-lp", po::value<Count<std::uint32_t>>(), "initial events per process M (default 1)")
      ("remote", po::value<double>(&p.remote_frac)->default_value(1.0), "probability P of a remote destination, in [0, 1]")
      ("end-time", po::value<std::string>(&end_time)->default_value(end_time), "simulated time to run, with a unit (e.g. 1 ms)")
      ("seed", po::value<Count<std::uint64_t>>(), "seed (default 1)")
      ("bare", "also run the bare binary-heap loop (the floor) on the same draws")
      ("json", "print one JSON object");
  const auto parsed = parse_command_line(args, opts);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  p.num_lps = vm.count("lps") ? vm["lps"].as<Count<std::uint32_t>>().value : 256;
  p.events_per_lp = vm.count("events-per-lp") ? vm["events-per-lp"].as<Count<std::uint32_t>>().value : 1;
  p.seed = vm.count("seed") ? vm["seed"].as<Count<std::uint64_t>>().value : 1;
  try {
    p.end_time_ps = sim::config::parse_time_ps(end_time);
    workloads::phold::validate(p);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("tessera bench phold: {}", e.what()));
  }
  const workloads::phold::PholdResult engine = workloads::phold::run_phold_engine(p);
  nlohmann::json j = result_json(engine);
  j["lps"] = p.num_lps;
  j["events_per_lp"] = p.events_per_lp;
  j["remote"] = p.remote_frac;
  j["end_time_ps"] = p.end_time_ps;
  j["seed"] = p.seed;
  if (vm.count("bare")) {
    const workloads::phold::PholdResult bare = workloads::phold::run_phold_bare(p);
    j["bare"] = result_json(bare);
    j["wall_engine_over_bare"] = engine.events_per_s() / bare.events_per_s();
  }
  if (vm.count("json")) {
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  TextTable t({"loop", "events", "wall (s)", "rate (M events/s)", "final time (ps)"});
  t.add_row({"engine", std::to_string(engine.events), fmt::format("{:.3f}", engine.wall_s),
             fmt::format("{:.2f}", engine.events_per_s() / 1e6), std::to_string(engine.final_time_ps)});
  if (vm.count("bare")) {
    const auto& b = j["bare"];
    t.add_row({"bare heap", std::to_string(b["events"].get<std::uint64_t>()), fmt::format("{:.3f}", b["wall_s"].get<double>()),
               fmt::format("{:.2f}", b["wall_events_per_s"].get<double>() / 1e6), std::to_string(b["final_time_ps"].get<std::uint64_t>())});
  }
  std::cout << t.render();
  return kExitOk;
}

}  // namespace

int command_bench(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "tessera bench BENCHMARK [options]\n\nBenchmarks:\n  phold   the event engine's yardstick (tessera bench phold --help)\n";
    return args.empty() ? kExitBadInput : kExitOk;
  }
  if (args[0] == "phold") return bench_phold(Args(args.begin() + 1, args.end()));
  throw UsageError(fmt::format("tessera bench: unknown benchmark '{}' (benchmarks: phold)", args[0]));
}

}  // namespace tessera::app
