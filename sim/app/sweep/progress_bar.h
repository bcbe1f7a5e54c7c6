#pragma once
// The sweep's progress on stderr: a bar redrawn in place when stderr is a terminal (points
// done of total, failures, elapsed time); nothing while running otherwise, so that logs stay
// clean. Safe to call from several threads.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace tessera::app::sweep {

class ProgressBar {
 public:
  // `label`: what is counted ("points", "points on rank 0"). `enabled`: draw at all.
  ProgressBar(std::size_t total, std::string label, bool enabled, std::FILE* out = stderr);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // One point finished (failed or not).
  void advance(bool failed);
  // Stops redrawing and ends the bar's line (the terminal's cursor moves below it).
  void finish();

  // Whether stderr is a terminal.
  static bool stderr_is_terminal();

  // The bar's text, e.g. "[##########          ] 5/10 points, 1 failed, 00:03 elapsed".
  static std::string render(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s,
                            const std::string& label);

 private:
  void draw_locked();

  std::mutex mutex_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  std::string label_;
  bool enabled_;
  bool finished_ = false;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::condition_variable_any tick_;
  std::jthread ticker_;  // redraws once a second so that the elapsed time moves during long points
};

}  // namespace tessera::app::sweep
