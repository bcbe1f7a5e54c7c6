// tessera tune's search on objectives whose best point is known by construction: exhaustive,
// successive halving on a proxy, coordinate descent, the budget, failed candidates and auto.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

#include "sim/app/tune/search.h"

namespace tessera::app::tune {
namespace {

// A separable bowl over three axes (sizes 5, 3, 6) whose minimum is at (3, 1, 4).
const std::vector<std::size_t> kSizes{5, 3, 6};
const std::vector<std::size_t> kBest{3, 1, 4};

double bowl(Candidate c) {
  const auto at = coordinates_of(c, kSizes);
  double f = 0;
  for (std::size_t i = 0; i < at.size(); ++i) f += std::pow(static_cast<double>(at[i]) - static_cast<double>(kBest[i]), 2);
  return f;
}

struct Counting {
  std::function<std::optional<Score>(Candidate)> score;
  std::size_t calls = 0;
  std::size_t runs = 0;
  Evaluator evaluator() {
    return [this](const std::vector<Candidate>& batch) {
      ++calls;
      runs += batch.size();
      std::vector<std::optional<Score>> out;
      for (Candidate c : batch) out.push_back(score(c));
      return out;
    };
  }
};

std::optional<Score> of(double v) { return Score{v, v}; }

Candidate best_of(const SearchOutcome& o) {
  std::optional<std::pair<Candidate, std::optional<Score>>> best;
  for (const auto& e : o.evaluated) {
    if (!e.second) continue;
    if (!best || *e.second < *best->second || (*e.second == *best->second && e.first < best->first)) best = e;
  }
  REQUIRE(best.has_value());
  return best->first;
}

TEST_CASE("tune search: candidates are mixed-radix indices, the last axis fastest") {
  CHECK(coordinates_of(5, {3, 4}) == std::vector<std::size_t>{1, 1});
  CHECK(candidate_of({2, 3}, {3, 4}) == 11);
  for (Candidate c = 0; c < 90; ++c) CHECK(candidate_of(coordinates_of(c, kSizes), kSizes) == c);
}

TEST_CASE("tune search: exhaustive runs every candidate once and finds the minimum") {
  Counting full{[](Candidate c) { return of(bowl(c)); }};
  const SearchOutcome o = search(kSizes, {SearchMethod::kExhaustive, 1000, 0}, full.evaluator(), nullptr);
  CHECK(o.method == SearchMethod::kExhaustive);
  CHECK(o.evaluated.size() == 90);
  CHECK(full.runs == 90);
  CHECK(best_of(o) == candidate_of(kBest, kSizes));
}

TEST_CASE("tune search: coordinate descent reaches a separable minimum in far fewer runs") {
  Counting full{[](Candidate c) { return of(bowl(c)); }};
  const SearchOutcome o = search(kSizes, {SearchMethod::kCoordinate, 1000, 0}, full.evaluator(), nullptr);
  CHECK(best_of(o) == candidate_of(kBest, kSizes));
  // Round 1 visits 5 + 3 + 6 points (sharing the current one), round 2 moves nothing: converged.
  CHECK(o.evaluated.size() < 20);
  CHECK(full.runs == o.evaluated.size());  // no candidate runs twice
  REQUIRE(o.log.size() == 2);
  CHECK(o.log.back().find("converged") != std::string::npos);
}

TEST_CASE("tune search: coordinate descent never runs more than the budget") {
  for (std::size_t budget : {1u, 4u, 7u, 12u}) {
    Counting full{[](Candidate c) { return of(bowl(c)); }};
    const SearchOutcome o = search(kSizes, {SearchMethod::kCoordinate, budget, 0}, full.evaluator(), nullptr);
    CHECK(o.evaluated.size() <= budget);
    CHECK(full.runs <= budget);
  }
}

TEST_CASE("tune search: coordinate descent starts where asked and stays on ties") {
  Counting full{[](Candidate) { return of(1.0); }};  // flat: every move is a tie
  const Candidate start = candidate_of({2, 2, 2}, kSizes);
  const SearchOutcome o = search(kSizes, {SearchMethod::kCoordinate, 1000, start}, full.evaluator(), nullptr);
  CHECK(o.evaluated.front().first == start);
  CHECK(best_of(o) <= start);  // ties rank by index; the walk itself never left the start
  CHECK(o.log.size() == 1);    // the first round moved nothing
}

TEST_CASE("tune search: halving screens every candidate on the proxy and runs the best `budget` in full") {
  // The proxy keeps the order (a cheaper run of the same kind: a fraction of the time, an offset).
  Counting full{[](Candidate c) { return of(bowl(c)); }};
  Counting proxy{[](Candidate c) { return of(0.125 * bowl(c) + 3); }};
  const Evaluator proxy_eval = proxy.evaluator();
  const SearchOutcome o = search(kSizes, {SearchMethod::kHalving, 8, 0}, full.evaluator(), &proxy_eval);
  CHECK(o.proxy_runs == 90);
  CHECK(proxy.runs == 90);
  CHECK(o.evaluated.size() == 8);
  CHECK(best_of(o) == candidate_of(kBest, kSizes));
  // The survivors are the proxy's best eight.
  for (const auto& [c, s] : o.evaluated) CHECK(bowl(c) <= 2.0);
}

TEST_CASE("tune search: a proxy that misranks the best loses it (halving is only as good as its proxy)") {
  const Candidate best = candidate_of(kBest, kSizes);
  Counting full{[](Candidate c) { return of(bowl(c)); }};
  Counting proxy{[best](Candidate c) { return of(c == best ? 100.0 : bowl(c)); }};
  const Evaluator proxy_eval = proxy.evaluator();
  const SearchOutcome o = search(kSizes, {SearchMethod::kHalving, 4, 0}, full.evaluator(), &proxy_eval);
  CHECK(best_of(o) != best);
  CHECK(bowl(best_of(o)) == 1.0);
}

TEST_CASE("tune search: failed candidates rank last, are never moved to, and are not screened on") {
  const Candidate best = candidate_of(kBest, kSizes);
  const auto failing = [best](Candidate c) -> std::optional<Score> {
    if (c == best) return std::nullopt;  // the bowl's bottom cannot run
    return of(bowl(c));
  };
  Counting full{failing};
  const SearchOutcome ex = search(kSizes, {SearchMethod::kExhaustive, 1000, 0}, full.evaluator(), nullptr);
  CHECK(bowl(best_of(ex)) == 1.0);
  Counting full2{failing};
  const SearchOutcome co = search(kSizes, {SearchMethod::kCoordinate, 1000, 0}, full2.evaluator(), nullptr);
  CHECK(bowl(best_of(co)) == 1.0);
  Counting full3{failing};
  Counting proxy{failing};
  const Evaluator proxy_eval = proxy.evaluator();
  const SearchOutcome ha = search(kSizes, {SearchMethod::kHalving, 5, 0}, full3.evaluator(), &proxy_eval);
  for (const auto& [c, s] : ha.evaluated) CHECK(c != best);
}

TEST_CASE("tune search: auto is exhaustive within the budget, then halving with a proxy, else coordinate") {
  Counting full{[](Candidate c) { return of(bowl(c)); }};
  Counting proxy{[](Candidate c) { return of(bowl(c)); }};
  const Evaluator proxy_eval = proxy.evaluator();
  CHECK(search(kSizes, {SearchMethod::kAuto, 90, 0}, full.evaluator(), &proxy_eval).method == SearchMethod::kExhaustive);
  CHECK(search(kSizes, {SearchMethod::kAuto, 89, 0}, full.evaluator(), &proxy_eval).method == SearchMethod::kHalving);
  CHECK(search(kSizes, {SearchMethod::kAuto, 89, 0}, full.evaluator(), nullptr).method == SearchMethod::kCoordinate);
  CHECK(search_method_from("halving") == SearchMethod::kHalving);
  CHECK_FALSE(search_method_from("random").has_value());
}

TEST_CASE("tune search: objective first, then makespan, then index") {
  CHECK(Score{-0.8, 200} < Score{-0.5, 100});  // l2_hit_rate: a higher hit rate wins
  CHECK(Score{-0.8, 100} < Score{-0.8, 200});  // equal hit rates: the faster
}

TEST_CASE("tune search: a budget of 0, halving without a proxy and a start outside the space are refused") {
  Counting full{[](Candidate c) { return of(bowl(c)); }};
  CHECK_THROWS_AS(search(kSizes, {SearchMethod::kExhaustive, 0, 0}, full.evaluator(), nullptr), std::invalid_argument);
  CHECK_THROWS_AS(search(kSizes, {SearchMethod::kHalving, 4, 0}, full.evaluator(), nullptr), std::invalid_argument);
  CHECK_THROWS_AS(search(kSizes, {SearchMethod::kCoordinate, 4, 90}, full.evaluator(), nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::app::tune
