// The progress line of the long commands (sim/app/progress.h): when it is drawn, its text, and
// how it ends. The clock is a number the tests set, so that nothing sleeps.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "sim/app/progress.h"

namespace tessera::app {
namespace {

// A line on a fake clock that writes into `out`.
struct FakeTerminal {
  double now_s = 0;
  std::string out;

  ProgressLine line(ProgressStyle style, const std::string& label, std::size_t total, bool enabled = true) {
    return ProgressLine(style, label, total, enabled, [this] { return now_s; },
                        [this](std::string_view text) { out += text; });
  }
};

TEST_CASE("a progress line is due after the first second, then at most every quarter second") {
  CHECK_FALSE(progress_draw_due(0.0, std::nullopt));
  CHECK_FALSE(progress_draw_due(0.999, std::nullopt));
  CHECK(progress_draw_due(1.0, std::nullopt));
  CHECK(progress_draw_due(30.0, std::nullopt));
  CHECK_FALSE(progress_draw_due(1.2, 1.0));
  CHECK(progress_draw_due(1.25, 1.0));
  CHECK(progress_draw_due(9.0, 1.0));
}

TEST_CASE("the texts of the bar and of a step") {
  CHECK(render_progress_bar(5, 10, 1, 65.2, "points") ==
        "[###############               ] 5/10 points, 1 failed, 01:05 elapsed");
  CHECK(render_progress_bar(0, 0, 0, 0, "points").starts_with("[##############################] 0/0"));
  CHECK(render_progress_step("run", 2, 3, "pull", 4.9) == "run 2/3 [pull] 00:04 elapsed");
  CHECK(render_progress_step("run", 1, 1, "", 3725) == "run 1/1 62:05 elapsed");
  ProgressCounts counts;
  counts.total = 10;
  counts.done = 3;
  counts.failed = 0;
  counts.started = 7;
  counts.step = "hbm";
  CHECK(render_progress(ProgressStyle::kBar, "cases", counts, 2) ==
        "[#########                     ] 3/10 cases, 0 failed, 00:02 elapsed");
  CHECK(render_progress(ProgressStyle::kSteps, "calibrate", counts, 2) == "calibrate 7/10 [hbm] 00:02 elapsed");
}

TEST_CASE("a disabled line draws nothing, however long the command runs") {
  FakeTerminal t;
  ProgressLine line = t.line(ProgressStyle::kSteps, "run", 3, false);
  t.now_s = 5;
  line.begin_step("bsp");
  line.tick();
  line.print("a message\n");
  t.now_s = 10;
  line.finish();
  CHECK(t.out == "a message\n");  // messages still go through, with no line around them
}

TEST_CASE("nothing is drawn in the first second, and a command over by then writes nothing at all") {
  FakeTerminal t;
  ProgressLine line = t.line(ProgressStyle::kBar, "points", 4);
  for (int i = 0; i < 4; ++i) {
    t.now_s = 0.2 * (i + 1);
    line.advance(false);
    line.tick();
  }
  CHECK(t.out.empty());
  line.finish();
  CHECK(t.out.empty());
}

TEST_CASE("a line with nothing to count draws nothing") {
  FakeTerminal t;
  ProgressLine line = t.line(ProgressStyle::kBar, "cases", 0);
  t.now_s = 3;
  line.tick();
  line.finish();
  CHECK(t.out.empty());
}

TEST_CASE("the line is drawn in place after a second, redrawn at most four times a second, and finish() ends it") {
  FakeTerminal t;
  ProgressLine line = t.line(ProgressStyle::kSteps, "run", 3);
  line.begin_step("bsp");
  t.now_s = 0.5;
  line.tick();
  CHECK(t.out.empty());
  t.now_s = 1.0;
  line.tick();
  CHECK(t.out == "\rrun 1/3 [bsp] 00:01 elapsed\x1b[K");
  t.out.clear();
  t.now_s = 1.1;
  line.begin_step("pull");  // too soon after the last draw: shown at the next one
  line.tick();
  CHECK(t.out.empty());
  t.now_s = 1.4;
  line.tick();
  CHECK(t.out == "\rrun 2/3 [pull] 00:01 elapsed\x1b[K");
  t.out.clear();
  t.now_s = 2.5;
  line.begin_step("push");
  CHECK(t.out == "\rrun 3/3 [push] 00:02 elapsed\x1b[K");
  t.out.clear();
  t.now_s = 2.6;
  line.finish();  // the final counts, and the line ended
  CHECK(t.out == "\rrun 3/3 [push] 00:02 elapsed\x1b[K\n");
  t.out.clear();
  t.now_s = 5;
  line.tick();
  line.finish();
  CHECK(t.out.empty());  // nothing after the end
}

TEST_CASE("a message clears the shown line and the line is drawn again below it") {
  FakeTerminal t;
  ProgressLine line = t.line(ProgressStyle::kSteps, "run", 1);
  line.begin_step("");
  t.now_s = 1.5;
  line.tick();
  t.out.clear();
  line.print("tessera run: stopped by --max-events\n");
  CHECK(t.out == "\r\x1b[Ktessera run: stopped by --max-events\n\rrun 1/1 00:01 elapsed\x1b[K");
  t.out.clear();
  line.finish();
  line.print("after\n");
  CHECK(t.out == "\rrun 1/1 00:01 elapsed\x1b[K\nafter\n");
}

TEST_CASE("workers may count at once") {
  FakeTerminal t;
  ProgressLine line = t.line(ProgressStyle::kBar, "cases", 400);
  t.now_s = 2;  // every advance may draw; the clock does not move, so only the first does
  std::vector<std::jthread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&line, w] {
      for (int i = 0; i < 100; ++i) line.advance(w == 0 && i < 3);
    });
  }
  workers.clear();  // joined
  t.out.clear();
  line.finish();
  CHECK(t.out == "\r[##############################] 400/400 cases, 3 failed, 00:02 elapsed\x1b[K\n");
}

}  // namespace
}  // namespace tessera::app
