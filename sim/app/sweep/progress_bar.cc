#include "sim/app/sweep/progress_bar.h"

#include <unistd.h>

#include <fmt/format.h>

namespace tessera::app::sweep {

ProgressBar::ProgressBar(std::size_t total, std::string label, bool enabled, std::FILE* out)
    : total_(total), label_(std::move(label)), enabled_(enabled && total > 0), out_(out) {
  if (!enabled_) return;
  {
    std::lock_guard lock(mutex_);
    draw_locked();
  }
  ticker_ = std::jthread([this](std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (!tick_.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; }) && !stop.stop_requested()) {
      draw_locked();
    }
  });
}

ProgressBar::~ProgressBar() { finish(); }

bool ProgressBar::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::string ProgressBar::render(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s,
                                const std::string& label) {
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total == 0 ? kWidth : done * kWidth / total;
  const auto seconds = static_cast<long>(elapsed_s);
  return fmt::format("[{}{}] {}/{} {}, {} failed, {:02}:{:02} elapsed", std::string(filled, '#'),
                     std::string(kWidth - filled, ' '), done, total, label, failed, seconds / 60, seconds % 60);
}

void ProgressBar::advance(bool failed) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (failed) ++failed_;
  if (enabled_) draw_locked();
}

void ProgressBar::finish() {
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
  std::lock_guard lock(mutex_);
  if (enabled_ && !finished_) {
    draw_locked();
    std::fputs("\n", out_);
  }
  finished_ = true;
}

void ProgressBar::draw_locked() {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // \r returns to the line's start; \x1b[K clears what a longer previous line left.
  std::fputs(fmt::format("\r{}\x1b[K", render(done_, total_, failed_, elapsed, label_)).c_str(), out_);
  std::fflush(out_);
}

}  // namespace tessera::app::sweep
