#include "sim/app/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace tessera::app {
namespace {

// The line on stderr that write_stderr() goes through, if one is shown.
std::mutex& shown_line_mutex() {
  static std::mutex m;
  return m;
}
ProgressLine*& shown_line() {
  static ProgressLine* line = nullptr;
  return line;
}

void write_to_stderr(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

std::string elapsed_text(double elapsed_s) {
  const auto seconds = static_cast<long>(elapsed_s);
  return fmt::format("{:02}:{:02} elapsed", seconds / 60, seconds % 60);
}

}  // namespace

bool progress_draw_due(double elapsed_s, std::optional<double> last_draw_s) {
  if (elapsed_s < kProgressFirstDraw_s) return false;
  return !last_draw_s || elapsed_s - *last_draw_s >= kProgressRedrawInterval_s;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

bool progress_wanted(bool quiet) { return !quiet && stderr_is_terminal(); }

std::string render_progress_bar(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s,
                                const std::string& label) {
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total == 0 ? kWidth : std::min(done, total) * kWidth / total;
  return fmt::format("[{}{}] {}/{} {}, {} failed, {}", std::string(filled, '#'), std::string(kWidth - filled, ' '), done,
                     total, label, failed, elapsed_text(elapsed_s));
}

std::string render_progress_step(const std::string& label, std::size_t step, std::size_t total, const std::string& name,
                                 double elapsed_s) {
  return fmt::format("{} {}/{}{} {}", label, step, total, name.empty() ? "" : " [" + name + "]", elapsed_text(elapsed_s));
}

std::string render_progress(ProgressStyle style, const std::string& label, const ProgressCounts& counts, double elapsed_s) {
  if (style == ProgressStyle::kBar) return render_progress_bar(counts.done, counts.total, counts.failed, elapsed_s, label);
  return render_progress_step(label, counts.started, counts.total, counts.step, elapsed_s);
}

ProgressLine::ProgressLine(ProgressStyle style, std::string label, std::size_t total, bool enabled)
    : ProgressLine(style, std::move(label), total, enabled,
                   [start = std::chrono::steady_clock::now()] {
                     return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                   },
                   write_to_stderr) {
  if (!enabled_) return;
  {
    const std::lock_guard lock(shown_line_mutex());
    shown_line() = this;
  }
  // Sleeps until the next draw is due rather than polling: idle between draws.
  ticker_ = std::jthread([this](std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (!stop.stop_requested()) {
      const double next_s = last_draw_s_ ? *last_draw_s_ + kProgressRedrawInterval_s : kProgressFirstDraw_s;
      // (1 ms past the due time, so that the wake-up is never a hair early and skipped.)
      const auto wait = std::chrono::duration<double>(std::max(next_s - elapsed_s(), 0.0) + 1e-3);
      wake_.wait_for(lock, stop, wait, [] { return false; });
      if (!stop.stop_requested()) tick_locked();
    }
  });
}

ProgressLine::ProgressLine(ProgressStyle style, std::string label, std::size_t total, bool enabled, Clock clock, Sink sink)
    : style_(style),
      label_(std::move(label)),
      counts_{total, 0, 0, 0, {}},
      enabled_(enabled && total > 0),
      clock_(std::move(clock)),
      sink_(std::move(sink)) {}

ProgressLine::~ProgressLine() { finish(); }

double ProgressLine::elapsed_s() const { return clock_(); }

void ProgressLine::advance(bool failed) {
  const std::lock_guard lock(mutex_);
  ++counts_.done;
  if (failed) ++counts_.failed;
  tick_locked();
}

void ProgressLine::begin_step(std::string name) {
  const std::lock_guard lock(mutex_);
  ++counts_.started;
  counts_.step = std::move(name);
  tick_locked();
}

void ProgressLine::tick() {
  const std::lock_guard lock(mutex_);
  tick_locked();
}

void ProgressLine::print(std::string_view text) {
  const std::lock_guard lock(mutex_);
  if (!enabled_ || finished_ || !last_draw_s_) {
    sink_(text);
    return;
  }
  sink_("\r\x1b[K" + std::string(text));  // the line's start, the line erased, then the text
  draw_locked(elapsed_s());
}

void ProgressLine::finish() {
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
  {
    const std::lock_guard lock(shown_line_mutex());
    if (shown_line() == this) shown_line() = nullptr;
  }
  const std::lock_guard lock(mutex_);
  if (enabled_ && !finished_ && last_draw_s_) {
    draw_locked(elapsed_s());
    sink_("\n");
  }
  finished_ = true;
}

void ProgressLine::tick_locked() {
  if (!enabled_ || finished_) return;
  const double now_s = elapsed_s();
  if (progress_draw_due(now_s, last_draw_s_)) draw_locked(now_s);
}

void ProgressLine::draw_locked(double now_s) {
  // \r returns to the line's start; \x1b[K clears what a longer previous line left.
  sink_(fmt::format("\r{}\x1b[K", render_progress(style_, label_, counts_, now_s)));
  last_draw_s_ = now_s;
}

void write_stderr(std::string_view text) {
  const std::lock_guard lock(shown_line_mutex());
  if (shown_line() != nullptr) {
    shown_line()->print(text);
  } else {
    write_to_stderr(text);
  }
}

}  // namespace tessera::app
