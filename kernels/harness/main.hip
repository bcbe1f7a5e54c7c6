// tessera-kernels: runs one case of the suite (--case) or a suite file (--suite) and writes a result JSON per run.
// docs/kernels.md describes the cases, the protocol and the output.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "harness/case.h"
#include "harness/result.h"

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

const char* const kUsage = R"(usage:
  tessera-kernels --list [--json]
  tessera-kernels --case NAME [--set KEY=VALUE]... [--ranks N] [--devices 0,1,...] [options] [--out DIR]
  tessera-kernels --suite FILE.yaml --out DIR [--only NAME]... [--dry-run] [options]
options:
  --warmup N       untimed iterations before the timed ones (default 5)
  --repeats N      timed iterations (default 20)
  --no-flush       no 256 MiB cache-flush write before each iteration
  --seed S         seed of the random inputs (default 1)
  --dry-run        check the parameters of every run and print its command; run nothing
  --timeout-s T    give up on a run that takes longer than T seconds, e.g. a flag never released (default 300)
Without --out, --case prints its result JSON on stdout. Exit: 0 every check passed, 1 a run failed, 2 bad input.
)";

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  bool list = false, json = false, dry_run = false;
  std::string case_name, suite_path, out_dir;
  std::vector<std::string> only;
  std::map<std::string, std::string> overrides;
  int ranks = 0;  // 0: the case's minimum
  std::vector<int> devices;
  std::uint64_t seed = 1;
  tk::TimingOptions timing;
  unsigned timeout_s = 300;
  std::string invoked_as;
};

long parse_count(const std::string& flag, const std::string& text, long low, long high) {
  try {
    std::size_t used = 0;
    const long value = std::stol(text, &used);
    if (used == text.size() && value >= low && value <= high) return value;
  } catch (const std::exception&) {
  }
  throw BadInput(flag + ": expected an integer from " + std::to_string(low) + " to " + std::to_string(high) +
                 ", got \"" + text + "\"");
}

std::pair<std::string, std::string> split_assignment(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) throw BadInput("--set: expected KEY=VALUE, got \"" + text + "\"");
  return {text.substr(0, equals), text.substr(equals + 1)};
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 0; i < argc; ++i) options.invoked_as += (i ? " " : "") + std::string(argv[i]);
  auto value_of = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw BadInput(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (flag == "--list") {
      options.list = true;
    } else if (flag == "--json") {
      options.json = true;
    } else if (flag == "--dry-run") {
      options.dry_run = true;
    } else if (flag == "--case") {
      options.case_name = value_of(i);
    } else if (flag == "--suite") {
      options.suite_path = value_of(i);
    } else if (flag == "--only") {
      options.only.push_back(value_of(i));
    } else if (flag == "--out") {
      options.out_dir = value_of(i);
    } else if (flag == "--set") {
      const auto [key, value] = split_assignment(value_of(i));
      options.overrides[key] = value;
    } else if (flag == "--ranks") {
      options.ranks = static_cast<int>(parse_count(flag, value_of(i), 1, 64));
    } else if (flag == "--devices") {
      std::string list = value_of(i);
      std::size_t start = 0;
      while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        options.devices.push_back(static_cast<int>(parse_count(flag, list.substr(start, comma - start), 0, 63)));
        start = comma + 1;
      }
    } else if (flag == "--warmup") {
      options.timing.warmup = static_cast<int>(parse_count(flag, value_of(i), 0, 1000000));
    } else if (flag == "--repeats") {
      options.timing.repeats = static_cast<int>(parse_count(flag, value_of(i), 1, 1000000));
    } else if (flag == "--no-flush") {
      options.timing.flush = false;
    } else if (flag == "--seed") {
      options.seed = static_cast<std::uint64_t>(parse_count(flag, value_of(i), 0, 1L << 62));
    } else if (flag == "--timeout-s") {
      options.timeout_s = static_cast<unsigned>(parse_count(flag, value_of(i), 1, 86400));
    } else {
      throw BadInput("unknown flag \"" + flag + "\" (see --help)");
    }
  }
  if (options.list + !options.case_name.empty() + !options.suite_path.empty() != 1) {
    throw BadInput("give exactly one of --list, --case NAME, --suite FILE (see --help)");
  }
  if (!options.suite_path.empty() && options.out_dir.empty()) throw BadInput("--suite needs --out DIR");
  return options;
}

const tk::CaseInfo& find_case(const std::vector<tk::CaseInfo>& cases, const std::string& name) {
  for (const tk::CaseInfo& info : cases) {
    if (info.name == name) return info;
  }
  std::string known;
  for (const tk::CaseInfo& info : cases) known += (known.empty() ? "" : ", ") + info.name;
  throw BadInput("unknown case \"" + name + "\" (cases: " + known + ")");
}

void write_atomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary);
    out << text << '\n';
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, path);
}

void list_cases(const std::vector<tk::CaseInfo>& cases, bool json) {
  nlohmann::json out = nlohmann::json::array();
  for (const tk::CaseInfo& info : cases) {
    if (!json) {
      std::printf("%-22s %-15s ranks %d-%d  %s\n", info.name.c_str(), info.kind.c_str(), info.min_ranks,
                  info.max_ranks, info.description.c_str());
      for (const tk::ParamSpec& spec : info.params) {
        std::printf("    %-18s = %-12s %s\n", spec.key.c_str(), spec.default_value.c_str(), spec.meaning.c_str());
      }
      continue;
    }
    nlohmann::json params = nlohmann::json::array();
    for (const tk::ParamSpec& spec : info.params) {
      params.push_back({{"key", spec.key}, {"default", spec.default_value}, {"meaning", spec.meaning}});
    }
    out.push_back({{"name", info.name},
                   {"kind", info.kind},
                   {"description", info.description},
                   {"min_ranks", info.min_ranks},
                   {"max_ranks", info.max_ranks},
                   {"params", params}});
  }
  if (json) std::cout << out.dump(2) << '\n';
}

tk::RunRequest make_request(const Options& options, const tk::CaseInfo& info,
                            const std::map<std::string, std::string>& overrides, int ranks) {
  tk::RunRequest request;
  request.info = &info;
  request.overrides = overrides;
  request.ranks = ranks > 0 ? ranks : info.min_ranks;
  request.devices = options.devices;
  if (request.devices.empty()) {
    for (int rank = 0; rank < request.ranks; ++rank) request.devices.push_back(rank);
  }
  if (static_cast<int>(request.devices.size()) != request.ranks) {
    throw BadInput("--devices lists " + std::to_string(request.devices.size()) + " GPUs for " +
                   std::to_string(request.ranks) + " ranks");
  }
  request.seed = options.seed;
  request.timing = options.timing;
  request.invoked_as = options.invoked_as;
  return request;
}

// Runs one request and writes or prints its result; returns whether it passed.
bool run_and_report(const tk::RunRequest& request, const Options& options) {
  std::fprintf(stderr, "%s ...", tk::reproduction_command(request).c_str());
  const nlohmann::json result = tk::run_case(request);
  const bool passed = result.value("status", "") == "passed";
  if (passed) {
    std::fprintf(stderr, " median %.0f ns\n", result["timing"]["median_ns"].get<double>());
  } else if (result.value("skipped", false)) {
    std::string why = result.value("error", std::string("?"));
    if (why.rfind("skipped: ", 0) == 0) why = why.substr(9);
    std::fprintf(stderr, " SKIPPED: %s\n", why.c_str());
  } else {
    std::fprintf(stderr, " FAILED: %s\n", result.value("error", std::string("?")).c_str());
  }
  if (options.out_dir.empty()) {
    std::cout << result.dump(2) << '\n';
  } else {
    write_atomically(std::filesystem::path(options.out_dir) / tk::result_file_name(request), result.dump(2));
  }
  return passed;
}

std::string scalar(const YAML::Node& node, const std::string& where) {
  if (!node.IsScalar()) {
    throw BadInput(where + " (line " + std::to_string(node.Mark().line + 1) + "): expected a single value");
  }
  return node.as<std::string>();
}

// A suite file: a list of cases, each with fixed `set:` values and `sweep:` lists (every combination runs).
std::vector<tk::RunRequest> read_suite(const Options& options, const std::vector<tk::CaseInfo>& cases) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(options.suite_path);
  } catch (const YAML::Exception& error) {
    throw BadInput(options.suite_path + ": " + error.what());
  }
  const std::string file = options.suite_path;
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (key != "name" && key != "cases" && key != "ranks") {
      throw BadInput(file + ":" + std::to_string(entry.first.Mark().line + 1) + ": unknown key '" + key +
                     "' (keys: name, ranks, cases)");
    }
  }
  const int suite_ranks = root["ranks"] ? static_cast<int>(parse_count(file + ": ranks", scalar(root["ranks"], file + ": ranks"), 1, 64)) : 0;
  std::vector<tk::RunRequest> requests;
  for (const YAML::Node& item : root["cases"]) {
    const std::string where = file + ":" + std::to_string(item.Mark().line + 1);
    for (const auto& entry : item) {
      const std::string key = entry.first.as<std::string>();
      if (key != "case" && key != "set" && key != "sweep" && key != "ranks") {
        throw BadInput(where + ": unknown key '" + key + "' (keys: case, set, sweep, ranks)");
      }
    }
    if (!item["case"]) throw BadInput(where + ": missing key 'case'");
    const tk::CaseInfo& info = find_case(cases, scalar(item["case"], where + ": case"));
    if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), info.name) == options.only.end()) {
      continue;
    }
    std::map<std::string, std::string> fixed;
    for (const auto& entry : item["set"]) fixed[entry.first.as<std::string>()] = scalar(entry.second, where + ": set");
    std::vector<std::map<std::string, std::string>> points{fixed};
    for (const auto& axis : item["sweep"]) {
      const std::string key = axis.first.as<std::string>();
      if (!axis.second.IsSequence()) throw BadInput(where + ": sweep." + key + ": expected a list");
      std::vector<std::map<std::string, std::string>> expanded;
      for (const auto& point : points) {
        for (const YAML::Node& value : axis.second) {
          auto next = point;
          next[key] = scalar(value, where + ": sweep." + key);
          expanded.push_back(next);
        }
      }
      points = expanded;
    }
    const int ranks = item["ranks"] ? static_cast<int>(parse_count(where + ": ranks", scalar(item["ranks"], where), 1, 64))
                                    : (options.ranks ? options.ranks : suite_ranks);
    for (const auto& point : points) {
      tk::RunRequest request = make_request(options, info, point, ranks);
      try {
        tk::validate_request(request);
      } catch (const std::invalid_argument& error) {
        throw BadInput(where + ": " + info.name + ": " + error.what());
      }
      requests.push_back(request);
    }
  }
  return requests;
}

extern "C" void on_timeout(int) {
  static const char message[] = "\nerror: a run exceeded --timeout-s (a flag never released?); stopping\n";
  (void)!write(2, message, sizeof message - 1);
  std::_Exit(kExitFailed);
}

}  // namespace

int main(int argc, char** argv) {
#if defined(TK_PLATFORM_NVIDIA)
  // CUDA loads a kernel's module at its first launch by default (lazy loading, CUDA 12.2+), and that load waits for
  // the kernels already running: a first launch behind a kernel that spins on a flag of another rank deadlocks.
  // Eager loading at context creation removes that; a user's own setting is kept.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
#endif
  try {
    const Options options = parse_options(argc, argv);
    const std::vector<tk::CaseInfo> cases = tk::all_cases();
    if (options.list) {
      list_cases(cases, options.json);
      return 0;
    }
    std::vector<tk::RunRequest> requests;
    if (!options.case_name.empty()) {
      requests.push_back(make_request(options, find_case(cases, options.case_name), options.overrides, options.ranks));
    } else {
      requests = read_suite(options, cases);
    }
    for (const tk::RunRequest& request : requests) {
      try {
        tk::validate_request(request);  // every run's parameters are checked before anything runs
      } catch (const std::invalid_argument& error) {
        throw BadInput(request.info->name + ": " + error.what());
      }
    }
    if (options.dry_run) {
      for (const tk::RunRequest& request : requests) std::printf("%s\n", tk::reproduction_command(request).c_str());
      return 0;
    }
    std::signal(SIGALRM, on_timeout);
    bool all_passed = true;
    for (const tk::RunRequest& request : requests) {
      alarm(options.timeout_s);
      all_passed = run_and_report(request, options) && all_passed;
      alarm(0);
    }
    return all_passed ? 0 : kExitFailed;
  } catch (const BadInput& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return kExitBadInput;
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return kExitBadInput;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return kExitFailed;
  }
}
