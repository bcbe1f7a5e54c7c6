#pragma once
// Runs the built `tessera` program with arguments and captures stdout, stderr and the exit code.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace tessera::test {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `args` is passed to the shell as is: quote what needs quoting.
inline ProcessResult run_tessera(const std::string& args, const std::filesystem::path& cwd = std::filesystem::temp_directory_path()) {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tessera-cli-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto out = dir / fmt::format("out-{}", counter);
  const auto err = dir / fmt::format("err-{}", counter++);
  const std::string cmd = fmt::format("cd '{}' && '{}' {} >'{}' 2>'{}'", cwd.string(), TESSERA_BIN, args, out.string(), err.string());
  const int status = std::system(cmd.c_str());
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_all(out);
  r.err = read_all(err);
  return r;
}

// A scratch folder for config files, unique per process.
inline std::filesystem::path scratch_dir() {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tessera-cli-files-{}", ::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

// An empty folder of that name in the scratch folder, for a command's --out.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = scratch_dir() / name;
  std::filesystem::remove_all(dir);
  return dir;
}

// A sweep's results.csv without its last column: wall_s, the only one that may differ between runs.
inline std::string without_wall_s(const std::string& csv) {
  std::istringstream in(csv);
  std::string out;
  for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

// The lines of a text (a CSV, a command's output), without their line breaks.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = scratch_dir() / name;
  std::ofstream(path) << text;
  return path;
}

// `tessera ARGS...` as a child process (stdout to /dev/null, stderr to `err`), for the tests that
// send it a signal; exit_code_of waits for it (128 + the signal when one ended it).
inline pid_t start_tessera(const std::vector<std::string>& args, const std::filesystem::path& err) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    std::vector<char*> argv{const_cast<char*>("tessera")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(TESSERA_BIN, argv.data());
    ::_exit(127);
  }
  return pid;
}

inline int exit_code_of(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace tessera::test
