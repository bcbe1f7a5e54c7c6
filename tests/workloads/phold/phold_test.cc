#include <doctest/doctest.h>

#include <initializer_list>
#include <stdexcept>

#include "workloads/phold/phold_engine.h"

using namespace tessera::workloads::phold;

TEST_CASE("PHOLD processes the same number of events for the same parameters") {
  PholdParams p;
  p.num_lps = 64;
  p.events_per_lp = 4;
  p.remote_frac = 0.5;
  p.end_time_ps = 2'000'000;  // 2 us
  p.seed = 11;
  const PholdResult a = run_phold_engine(p);
  const PholdResult b = run_phold_engine(p);
  CHECK(a.events > 0);
  CHECK(a.events == b.events);
  CHECK(a.final_time_ps == b.final_time_ps);
  CHECK(a.final_time_ps <= p.end_time_ps);
  // Every event's delay is at least 1 ns and averages 10 ns, so each of the 256 chains
  // advances about 200 times in 2 us: the count lies well inside these bounds.
  CHECK(a.events > 256 * 150);
  CHECK(a.events < 256 * 2000);
  p.seed = 12;
  CHECK(run_phold_engine(p).events != a.events);
}

TEST_CASE("the engine and the bare heap loop agree event for event") {
  for (double remote : {0.0, 0.25, 1.0}) {
    PholdParams p;
    p.num_lps = 100;
    p.events_per_lp = 3;
    p.remote_frac = remote;
    p.end_time_ps = 1'000'000;
    const PholdResult engine = run_phold_engine(p);
    const PholdResult bare = run_phold_bare(p);
    CHECK(engine.events == bare.events);
    CHECK(engine.final_time_ps == bare.final_time_ps);
  }
}

TEST_CASE("PHOLD rejects parameters outside their domain") {
  PholdParams p;
  p.num_lps = 0;
  CHECK_THROWS_AS(run_phold_engine(p), std::invalid_argument);
  p = PholdParams{};
  p.remote_frac = 1.5;
  CHECK_THROWS_AS(run_phold_engine(p), std::invalid_argument);
}
