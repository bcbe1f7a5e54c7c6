#pragma once
// The progress line of the long commands (run, sweep, validate, calibrate) on stderr: redrawn in
// place, and only where someone watches it. It is drawn when stderr is a terminal and --quiet was
// not given, so that logs and pipes stay clean; not before the command has run for a second, so
// that quick commands print nothing more than before; and at most four times a second, so that
// drawing costs nothing next to the simulation. stdout and the files never see it.
//
// The timing rules and the text are pure functions of the elapsed time, so that tests need not
// sleep; ProgressLine applies them with a clock and a sink that tests may replace.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace tessera::app {

// Nothing is drawn before the command has run this long.
inline constexpr double kProgressFirstDraw_s = 1.0;
// Two draws are at least this far apart (about four a second).
inline constexpr double kProgressRedrawInterval_s = 0.25;

// Whether a line is due now: after the first second, and a redraw interval after the last draw
// (`last_draw_s`: when the line was last drawn, nullopt if never), both in seconds since the start.
bool progress_draw_due(double elapsed_s, std::optional<double> last_draw_s);

// Whether stderr is a terminal.
bool stderr_is_terminal();
// Whether a command shows its progress line: on a terminal, unless --quiet.
bool progress_wanted(bool quiet);

// What the line counts.
enum class ProgressStyle {
  kBar,    // things finished, in any order (sweep points, validation cases): a bar, the count and failures
  kSteps,  // steps run one after another (runs, fits): the step running, by name
};

struct ProgressCounts {
  std::size_t total = 0;
  std::size_t done = 0;     // kBar: finished
  std::size_t failed = 0;   // kBar: of those, failed
  std::size_t started = 0;  // kSteps: the step running (1-based; 0: none yet)
  std::string step;         // kSteps: its name ("" for none)
};

// The bar's text, e.g. "[##########          ] 5/10 points, 1 failed, 00:03 elapsed".
std::string render_progress_bar(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s,
                                const std::string& label);
// A step's text, e.g. "run 2/3 [pull] 00:04 elapsed" (no brackets for an unnamed step).
std::string render_progress_step(const std::string& label, std::size_t step, std::size_t total, const std::string& name,
                                 double elapsed_s);
// The line for either style.
std::string render_progress(ProgressStyle style, const std::string& label, const ProgressCounts& counts, double elapsed_s);

// One progress line. Safe to call from several threads (sweep and validate count from their
// workers). A background thread redraws it so that the elapsed time moves during long steps.
class ProgressLine {
 public:
  using Clock = std::function<double()>;             // seconds since the line was made
  using Sink = std::function<void(std::string_view)>;  // where the text goes

  // `label`: kBar: what is counted ("points"); kSteps: the command ("run"). `enabled`: draw at
  // all (progress_wanted()); nothing is drawn for a total of 0 either. Draws on stderr against
  // the steady clock, with the background thread.
  ProgressLine(ProgressStyle style, std::string label, std::size_t total, bool enabled);
  // For tests: the given clock and sink and no background thread (tick() draws when due).
  ProgressLine(ProgressStyle style, std::string label, std::size_t total, bool enabled, Clock clock, Sink sink);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // kBar: one thing finished (failed or not).
  void advance(bool failed = false);
  // kSteps: the next step begins (the one before it, if any, is over).
  void begin_step(std::string name);
  // Draws the line if it is due.
  void tick();
  // Writes `text` (whole lines) on the sink, clearing the progress line first and drawing it
  // again below, so that a message never lands in the middle of the line.
  void print(std::string_view text);
  // Stops redrawing; a line that was drawn is drawn once more with the final counts and ended
  // (the cursor moves below it). Nothing is written when nothing was drawn. Idempotent.
  void finish();

 private:
  double elapsed_s() const;
  void draw_locked(double now_s);
  void tick_locked();

  mutable std::mutex mutex_;
  ProgressStyle style_;
  std::string label_;
  ProgressCounts counts_;
  bool enabled_;
  bool finished_ = false;
  std::optional<double> last_draw_s_;
  Clock clock_;
  Sink sink_;
  std::condition_variable_any wake_;
  std::jthread ticker_;
};

// Writes `text` on stderr; when a progress line is shown, through it (ProgressLine::print), so
// that messages of code that does not know the line (a run stopped by a limit) keep it intact.
void write_stderr(std::string_view text);

}  // namespace tessera::app
