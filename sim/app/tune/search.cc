#include "sim/app/tune/search.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace tessera::app::tune {
namespace {

std::size_t product(const std::vector<std::size_t>& sizes) {
  std::size_t n = 1;
  for (std::size_t s : sizes) n *= s;
  return n;
}

// Ranks (score, candidate) pairs: scored before unscored, then by score, then by index.
bool better(const std::pair<Candidate, std::optional<Score>>& a, const std::pair<Candidate, std::optional<Score>>& b) {
  if (a.second.has_value() != b.second.has_value()) return a.second.has_value();
  if (a.second && *a.second != *b.second) return *a.second < *b.second;
  return a.first < b.first;
}

// Runs the candidates not yet known at full fidelity, records them, and returns every given
// candidate's score.
class FullRuns {
 public:
  FullRuns(const Evaluator& evaluate, SearchOutcome& out) : evaluate_(evaluate), out_(out) {}

  std::vector<std::optional<Score>> run(const std::vector<Candidate>& candidates) {
    std::vector<Candidate> fresh;
    for (Candidate c : candidates) {
      if (!known_.contains(c) && std::find(fresh.begin(), fresh.end(), c) == fresh.end()) fresh.push_back(c);
    }
    if (!fresh.empty()) {
      const std::vector<std::optional<Score>> scores = evaluate_(fresh);
      if (scores.size() != fresh.size()) throw std::logic_error("tune: the evaluator returned the wrong number of scores");
      for (std::size_t i = 0; i < fresh.size(); ++i) {
        known_[fresh[i]] = scores[i];
        out_.evaluated.emplace_back(fresh[i], scores[i]);
      }
    }
    std::vector<std::optional<Score>> out;
    for (Candidate c : candidates) out.push_back(known_.at(c));
    return out;
  }
  bool known(Candidate c) const { return known_.contains(c); }
  std::size_t count() const { return known_.size(); }

 private:
  const Evaluator& evaluate_;
  SearchOutcome& out_;
  std::map<Candidate, std::optional<Score>> known_;
};

std::vector<Candidate> all_candidates(std::size_t n) {
  std::vector<Candidate> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  return all;
}

void exhaustive(std::size_t n, FullRuns& runs, SearchOutcome& out) {
  runs.run(all_candidates(n));
  out.log.push_back(fmt::format("exhaustive: {} candidates", n));
}

void halving(std::size_t n, std::size_t budget, const Evaluator& proxy, FullRuns& runs, SearchOutcome& out) {
  const std::vector<Candidate> all = all_candidates(n);
  const std::vector<std::optional<Score>> screened = proxy(all);
  if (screened.size() != n) throw std::logic_error("tune: the proxy evaluator returned the wrong number of scores");
  out.proxy_runs = n;
  std::vector<std::pair<Candidate, std::optional<Score>>> ranked;
  for (std::size_t i = 0; i < n; ++i) ranked.emplace_back(all[i], screened[i]);
  std::sort(ranked.begin(), ranked.end(), better);
  std::vector<Candidate> survivors;
  for (const auto& [c, s] : ranked) {
    if (s && survivors.size() < budget) survivors.push_back(c);
  }
  const std::size_t failed = static_cast<std::size_t>(
      std::count_if(ranked.begin(), ranked.end(), [](const auto& r) { return !r.second.has_value(); }));
  out.log.push_back(fmt::format("screening on the proxy: {} candidates ({} could not run); the best {} go on", n, failed,
                                survivors.size()));
  runs.run(survivors);
  out.log.push_back(fmt::format("full runs of the {} survivors", survivors.size()));
}

void coordinate(const std::vector<std::size_t>& sizes, std::size_t budget, Candidate start, FullRuns& runs,
                SearchOutcome& out) {
  std::vector<std::size_t> at = coordinates_of(start, sizes);
  std::optional<Score> current = runs.run({start}).front();
  for (std::size_t round = 1;; ++round) {
    bool moved = false;
    for (std::size_t axis = 0; axis < sizes.size() && runs.count() < budget; ++axis) {
      if (sizes[axis] < 2) continue;
      std::vector<Candidate> line;
      std::size_t fresh = 0;
      for (std::size_t v = 0; v < sizes[axis]; ++v) {
        std::vector<std::size_t> c = at;
        c[axis] = v;
        const Candidate candidate = candidate_of(c, sizes);
        const bool is_new = !runs.known(candidate);
        if (is_new && runs.count() + fresh >= budget) continue;  // out of budget: try the ones we can
        fresh += is_new ? 1 : 0;
        line.push_back(candidate);
      }
      const std::vector<std::optional<Score>> scores = runs.run(line);
      std::pair<Candidate, std::optional<Score>> best{candidate_of(at, sizes), current};
      for (std::size_t i = 0; i < line.size(); ++i) {
        const std::pair<Candidate, std::optional<Score>> here{line[i], scores[i]};
        // Move only to a strictly better score: a tie keeps the current point (no cycling).
        const bool strictly = here.second && (!best.second || *here.second < *best.second);
        if (strictly) best = here;
      }
      if (best.first != candidate_of(at, sizes)) {
        at = coordinates_of(best.first, sizes);
        current = best.second;
        moved = true;
      }
    }
    out.log.push_back(fmt::format("coordinate round {}: {} runs so far{}", round, runs.count(),
                                  moved ? "" : ", no axis moved: converged"));
    if (!moved) break;
    if (runs.count() >= budget) {
      out.log.push_back(fmt::format("budget of {} runs spent", budget));
      break;
    }
  }
}

}  // namespace

std::string to_string(SearchMethod m) {
  switch (m) {
    case SearchMethod::kAuto: return "auto";
    case SearchMethod::kExhaustive: return "exhaustive";
    case SearchMethod::kHalving: return "halving";
    case SearchMethod::kCoordinate: return "coordinate";
  }
  return "?";
}

std::optional<SearchMethod> search_method_from(const std::string& text) {
  for (SearchMethod m : {SearchMethod::kAuto, SearchMethod::kExhaustive, SearchMethod::kHalving, SearchMethod::kCoordinate}) {
    if (to_string(m) == text) return m;
  }
  return std::nullopt;
}

std::vector<std::size_t> coordinates_of(Candidate c, const std::vector<std::size_t>& sizes) {
  std::vector<std::size_t> out(sizes.size());
  for (std::size_t i = sizes.size(); i-- > 0;) {
    out[i] = c % sizes[i];
    c /= sizes[i];
  }
  return out;
}

Candidate candidate_of(const std::vector<std::size_t>& coordinates, const std::vector<std::size_t>& sizes) {
  Candidate c = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) c = c * sizes[i] + coordinates[i];
  return c;
}

SearchOutcome search(const std::vector<std::size_t>& sizes, const SearchSettings& settings, const Evaluator& full,
                     const Evaluator* proxy) {
  if (settings.budget == 0) throw std::invalid_argument("the budget must be at least 1 run");
  const std::size_t n = product(sizes);
  if (settings.start >= n) throw std::invalid_argument("the start candidate is outside the space");
  SearchOutcome out;
  out.method = settings.method;
  if (out.method == SearchMethod::kAuto) {
    out.method = n <= settings.budget ? SearchMethod::kExhaustive
                 : proxy != nullptr   ? SearchMethod::kHalving
                                      : SearchMethod::kCoordinate;
  }
  FullRuns runs(full, out);
  switch (out.method) {
    case SearchMethod::kExhaustive: exhaustive(n, runs, out); break;
    case SearchMethod::kHalving:
      if (proxy == nullptr) throw std::invalid_argument("halving needs a proxy: (the space file's proxy: map)");
      halving(n, settings.budget, *proxy, runs, out);
      break;
    case SearchMethod::kCoordinate: coordinate(sizes, settings.budget, settings.start, runs, out); break;
    case SearchMethod::kAuto: break;
  }
  return out;
}

}  // namespace tessera::app::tune
