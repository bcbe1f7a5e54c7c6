#include "harness/result.h"

#include <cctype>
#include <chrono>
#include <ctime>
#include <set>
#include <stdexcept>

#include "harness/device_info.h"
#include "tk_git_commit.h"  // generated at build time (kernels/cmake/write_git_commit.cmake)


namespace tk {

namespace {

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string shell_quote(const std::string& text) {
  for (char c : text) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '=' || c == '.' || c == '_' || c == '-' || c == '/')) {
      std::string quoted = "'";
      for (char d : text) quoted += d == '\'' ? std::string("'\\''") : std::string(1, d);
      return quoted + "'";
    }
  }
  return text;
}

}  // namespace

std::string reproduction_command(const RunRequest& request) {
  std::string command = "tessera-kernels --case " + request.info->name;
  for (const auto& [key, value] : request.overrides) command += " --set " + shell_quote(key + "=" + value);
  command += " --ranks " + std::to_string(request.ranks);
  command += " --warmup " + std::to_string(request.timing.warmup);
  command += " --repeats " + std::to_string(request.timing.repeats);
  if (!request.timing.flush) command += " --no-flush";
  command += " --seed " + std::to_string(request.seed);
  return command;
}

std::string result_file_name(const RunRequest& request) {
  std::string name = request.info->name;
  for (const auto& [key, value] : request.overrides) {
    name += "." + key + "-";
    for (char c : value) {
      if (std::isalnum(static_cast<unsigned char>(c))) name += c;
    }
  }
  return name + ".r" + std::to_string(request.ranks) + ".json";
}

void validate_request(const RunRequest& request) {
  const CaseInfo& info = *request.info;
  if (request.ranks < info.min_ranks || request.ranks > info.max_ranks) {
    throw std::invalid_argument(info.name + " runs on " + std::to_string(info.min_ranks) + " to " +
                                std::to_string(info.max_ranks) + " ranks, not " + std::to_string(request.ranks));
  }
  const Params params(info.params, request.overrides);
  (void)info.make(params, request.ranks);
}

nlohmann::json run_case(const RunRequest& request) {
  validate_request(request);
  const CaseInfo& info = *request.info;
  const Params params(info.params, request.overrides);
  std::unique_ptr<Case> the_case = info.make(params, request.ranks);  // validates choices, may throw

  nlohmann::json result{{"schema", "tessera-kernels-result/1"},
                        {"case", info.name},
                        {"kind", info.kind},
                        {"description", info.description},
                        {"ranks", request.ranks},
                        {"date", utc_now_iso8601()},
                        {"git_commit", TK_GIT_COMMIT},
                        {"command", reproduction_command(request)},
                        {"invoked_as", request.invoked_as},
                        {"params", params.to_json()},
                        {"seed", request.seed}};
  result["tessera"] = {{"workload", info.tessera_workload(params, request.ranks)}, {"ranks", request.ranks}};
  try {
    the_case->check_prerequisites();
  } catch (const CaseSkipped& skipped) {
    // Recorded as a failed run (the schema's statuses are passed and failed; readers ignore failed results),
    // marked as skipped so that the driver and a reader can tell a missing library from a broken case. No GPU
    // was touched, so the result names none.
    result["status"] = "failed";
    result["skipped"] = true;
    result["error"] = std::string("skipped: ") + skipped.what();
    the_case->describe(result);
    return result;
  }
  nlohmann::json devices = nlohmann::json::array();
  for (int device : request.devices) devices.push_back(describe_device(device));
  result["device"] = devices.at(0)["name"];
  const std::set<int> distinct(request.devices.begin(), request.devices.end());
  result["shared_gpu"] = distinct.size() < request.devices.size();
  result["devices"] = devices;
  result["runtime"] = describe_runtime();

  try {
    Context context(params, request.devices, request.seed);
    the_case->setup(context);
    const CheckResult check = run_checked(*the_case, context);
    result["check"] = {{"passed", check.passed},
                       {"max_relative_error", check.max_relative_error},
                       {"tolerance", check.tolerance},
                       {"values_checked", check.values_checked},
                       {"detail", check.detail}};
    if (!check.passed) {
      result["status"] = "failed";
      result["error"] = "the result check failed: " + check.detail;
    } else {
      const Timing timing = run_timed(*the_case, context, request.timing);
      result["timing"] = timing.to_json(request.timing);
      nlohmann::json metrics = nlohmann::json::object();
      the_case->derive_metrics(context, timing, metrics);
      result["metrics"] = metrics;
      result["status"] = "passed";
    }
  } catch (const std::exception& error) {
    result["status"] = "failed";
    result["error"] = error.what();
  }
  the_case->describe(result);
  return result;
}

}  // namespace tk
