#include "sim/app/report/timeline_json.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <compare>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/core/tick.h"
#include "sim/app/report/category_style.h"
#include "sim/app/report/link_utilisation.h"

namespace tessera::app::report {
namespace {

using sim::Tick;
using workloads::replay::ActivityDetail;
using workloads::replay::ActivityLog;
using workloads::replay::GpuStretch;
using workloads::replay::FlagEdge;
using workloads::replay::LinkSample;
using workloads::replay::WorkgroupSlice;

// Wide enough to click on in a viewer, narrow beside any tile operation.
constexpr Tick kFlagAnchorPs = 1'000;
constexpr std::uint32_t kFlagsTrackSub = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kUnknownDie = std::numeric_limits<std::uint32_t>::max();
constexpr std::string_view kKernelCname = "rail_response";
constexpr std::string_view kFlagCname = "light_memory_dump";

std::string json_string(std::string_view s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// ps as microseconds with exactly six decimals. Hand-rolled: it runs twice per slice, and
// timelines hold millions of slices.
void append_us(std::string& out, Tick ps) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, ps / sim::kPsPerUs);
  out.append(buf, end);
  Tick fraction = ps % sim::kPsPerUs;
  char digits[7] = {'.', '0', '0', '0', '0', '0', '0'};
  for (int i = 6; i >= 1; --i) {
    digits[i] = static_cast<char>('0' + fraction % 10);
    fraction /= 10;
  }
  out.append(digits, sizeof digits);
}

void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

struct KernelRow {
  std::string name;
  std::uint32_t rank = 0;
  std::uint32_t stream = 0;
  Tick launch_ps = 0;
  Tick start_ps = 0;
  Tick end_ps = 0;
  nlohmann::json args;
};

std::vector<KernelRow> read_kernels(const run::RunResult& result) {
  std::vector<KernelRow> rows;
  if (!result.result.breakdown) return rows;
  const std::vector<workloads::KernelTiming>& kernels = result.result.breakdown->kernels;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const workloads::KernelTiming& k = kernels[i];
    KernelRow row;
    row.name = k.name;
    row.rank = k.rank;
    row.stream = k.stream;
    row.launch_ps = k.launch_ps;
    row.start_ps = std::max(row.launch_ps, k.start_ps);
    row.end_ps = std::max(row.start_ps, k.end_ps);
    row.args = nlohmann::json::object();
    row.args["kernel_index"] = i;
    row.args["grid"] = k.grid;
    row.args["completed"] = k.completed;
    row.args["taxes_ns"] = run::category_times_json(k.times, true);
    row.args["work_ns"] = run::category_times_json(k.times, false);
    rows.push_back(std::move(row));
  }
  return rows;
}

enum class SliceKind : std::uint8_t { kLaunch, kKernel, kWorkgroup, kFlagRelease, kFlagAcquire, kBreakdown };

// The breakdown track of a GPU sorts after its streams' kernel tracks.
constexpr std::uint32_t kBreakdownTrack = std::numeric_limits<std::uint32_t>::max();

// Where a track sits among its process's tracks; the order of keys is the display order.
struct TrackKey {
  std::uint32_t pid = 0;
  std::uint32_t group = 0;  // 0: a stream's kernels, 1: a CU's slot or flag track
  std::uint32_t major = 0;  // stream, or XCD
  std::uint32_t minor = 0;  // CU
  std::uint32_t sub = 0;    // slot, or kFlagsTrackSub
  auto operator<=>(const TrackKey&) const = default;
};

struct Slice {
  std::uint32_t track = 0;
  Tick start_ps = 0;
  Tick end_ps = 0;
  SliceKind kind = SliceKind::kWorkgroup;
  std::uint32_t ref = 0;  // index into the kernels, the log's slices or GPU stretches, or flag_order_
};

struct CounterSample {
  std::uint32_t pid = 0;
  Tick ts_ps = 0;
  std::uint32_t series = 0;
  double value = 0.0;
};

struct CounterSeries {
  std::string name_json;  // already a JSON string
  std::string arg_json;
  bool integral = false;
};

class TimelineWriter {
 public:
  TimelineWriter(const run::RunResult& result, const ActivityLog& log, ActivityDetail detail)
      : result_(result), detail_(detail), log_(log), kernels_(read_kernels(result)) {
    for (const KernelRow& k : kernels_) kernel_names_json_.push_back(json_string(k.name));
    for (std::size_t i = 0; i < kAllCategories.size(); ++i) {
      category_names_json_[static_cast<std::size_t>(kAllCategories[i])] = json_string(workloads::replay::to_string(kAllCategories[i]));
    }
  }

  std::string write() {
    collect_ranks();
    collect_kernel_slices();
    collect_breakdown_slices();
    if (detail_ == ActivityDetail::kWorkgroups) {
      collect_workgroup_slices();
      collect_flag_anchors();
      collect_xcd_counters();
      collect_link_counters();
    } else {
      collect_link_class_counters();
    }
    pack_lanes();
    return render();
  }

 private:
  std::uint32_t pid_of_rank(std::uint32_t rank) const { return rank + 1; }

  void collect_ranks() {
    for (const KernelRow& k : kernels_) ranks_.insert(k.rank);
    for (const WorkgroupSlice& s : log_.slices) ranks_.insert(s.rank);
    for (const FlagEdge& f : log_.flags) {
      ranks_.insert(f.release_rank);
      ranks_.insert(f.acquire_rank);
    }
    has_links_ = !log_.links.empty() || !log_.link_samples.empty();
    const std::uint32_t max_gpu_pid = ranks_.empty() ? 0 : pid_of_rank(*ranks_.rbegin());
    links_pid_ = max_gpu_pid + 1;
    // Thread ids are unique across processes (viewers key threads by tid) and never equal a
    // pid: process-wide events (names, counters) use tid = pid, as a process's main thread does.
    first_tid_ = links_pid_ + 1;
  }

  // The track of a key; make_name() runs only for a new track (most slices join an old one).
  template <typename MakeName>
  std::uint32_t track(const TrackKey& key, MakeName make_name) {
    const auto [it, inserted] = track_index_.try_emplace(key, static_cast<std::uint32_t>(track_names_.size()));
    if (inserted) track_names_.push_back(make_name());
    return it->second;
  }

  void add_slice(std::uint32_t track_id, Tick start_ps, Tick end_ps, SliceKind kind, std::size_t ref) {
    slices_.push_back({track_id, start_ps, std::max(start_ps, end_ps), kind, static_cast<std::uint32_t>(ref)});
  }

  void collect_kernel_slices() {
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      const KernelRow& k = kernels_[i];
      const std::uint32_t t =
          track({pid_of_rank(k.rank), 0, k.stream, 0, 0}, [&] { return fmt::format("kernels (stream {})", k.stream); });
      if (k.start_ps > k.launch_ps) add_slice(t, k.launch_ps, k.start_ps, SliceKind::kLaunch, i);
      add_slice(t, k.start_ps, k.end_ps, SliceKind::kKernel, i);
    }
  }

  // Each GPU's breakdown over time: one track, a slice per stretch of one category.
  void collect_breakdown_slices() {
    for (std::size_t i = 0; i < log_.gpu_stretches.size(); ++i) {
      const GpuStretch& s = log_.gpu_stretches[i];
      const std::uint32_t t =
          track({pid_of_rank(s.rank), 0, kBreakdownTrack, 0, 0}, [] { return std::string("where the time goes"); });
      add_slice(t, s.start_ps, s.end_ps, SliceKind::kBreakdown, i);
    }
  }

  // Kernel detail: per link class, the mean utilisation of its links (from the result's binned
  // series), instead of a counter per link.
  void collect_link_class_counters() {
    if (!result_.result.traffic) return;
    for (const auto& [cls, steps] :
         class_average_utilisation(result_.result.traffic->link_utilisation, result_.makespan_ns())) {
      const std::uint32_t id = series(cls + " links (mean)", "utilisation_pct", false);
      for (const UtilisationStep& step : steps) {
        counters_.push_back({links_pid_, static_cast<Tick>(std::llround(step.time_ns * 1e3)), id, step.utilisation * 100.0});
      }
    }
  }

  static std::string cu_track_name(std::uint32_t die, std::uint32_t cu) {
    return die == kUnknownDie ? fmt::format("CU {}", cu) : fmt::format("XCD {} / CU {}", die, cu);
  }

  void collect_workgroup_slices() {
    for (std::size_t i = 0; i < log_.slices.size(); ++i) {
      const WorkgroupSlice& s = log_.slices[i];
      die_of_cu_.try_emplace({s.rank, s.cu}, s.die);
      const std::uint32_t t = track({pid_of_rank(s.rank), 1, s.die, s.cu, s.slot}, [&] {
        std::string name = cu_track_name(s.die, s.cu);
        if (s.slot > 0) name += fmt::format(" slot {}", s.slot);
        return name;
      });
      add_slice(t, s.start_ps, s.end_ps, SliceKind::kWorkgroup, i);
    }
  }

  std::uint32_t flag_track(std::uint32_t rank, std::uint32_t cu) {
    const auto it = die_of_cu_.find({rank, cu});
    const std::uint32_t die = it == die_of_cu_.end() ? kUnknownDie : it->second;
    return track({pid_of_rank(rank), 1, die, cu, kFlagsTrackSub}, [&] { return cu_track_name(die, cu) + " flags"; });
  }

  // Flags in a canonical order (by release, then acquire), so that flow ids and the lanes of
  // simultaneous anchors do not depend on the order the replay recorded them in.
  void collect_flag_anchors() {
    flag_order_.resize(log_.flags.size());
    for (std::size_t i = 0; i < flag_order_.size(); ++i) flag_order_[i] = i;
    auto key = [this](std::size_t i) {
      const FlagEdge& f = log_.flags[i];
      return std::tie(f.release_ps, f.release_rank, f.release_cu, f.acquire_ps, f.acquire_rank, f.acquire_cu);
    };
    std::stable_sort(flag_order_.begin(), flag_order_.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    for (std::size_t i = 0; i < flag_order_.size(); ++i) {
      const FlagEdge& f = log_.flags[flag_order_[i]];
      add_slice(flag_track(f.release_rank, f.release_cu), f.release_ps, f.release_ps + kFlagAnchorPs,
                SliceKind::kFlagRelease, i);
      add_slice(flag_track(f.acquire_rank, f.acquire_cu), f.acquire_ps, f.acquire_ps + kFlagAnchorPs,
                SliceKind::kFlagAcquire, i);
    }
  }

  std::uint32_t series(std::string name, std::string_view arg, bool integral) {
    const auto [it, inserted] = series_index_.try_emplace(name, static_cast<std::uint32_t>(series_.size()));
    if (inserted) series_.push_back({json_string(name), json_string(arg), integral});
    return it->second;
  }

  // The number of occupied workgroup slots per XCD, as a step counter: one sample wherever
  // the count changes.
  void collect_xcd_counters() {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::pair<Tick, int>>> deltas;
    for (const WorkgroupSlice& s : log_.slices) {
      if (s.end_ps <= s.start_ps) continue;
      auto& d = deltas[{s.rank, s.die}];
      d.emplace_back(s.start_ps, +1);
      d.emplace_back(s.end_ps, -1);
    }
    for (auto& [rank_die, d] : deltas) {
      std::sort(d.begin(), d.end());
      const std::uint32_t id = series(fmt::format("XCD {}", rank_die.second), "busy_slots", true);
      long long busy = 0;
      std::optional<long long> last_emitted;
      for (std::size_t i = 0; i < d.size();) {
        const Tick t = d[i].first;
        for (; i < d.size() && d[i].first == t; ++i) busy += d[i].second;
        if (last_emitted != busy) {
          counters_.push_back({pid_of_rank(rank_die.first), t, id, static_cast<double>(busy)});
          last_emitted = busy;
        }
      }
    }
  }

  void collect_link_counters() {
    if (!has_links_) return;
    std::map<std::string, int> name_uses;
    for (const auto& l : log_.links) ++name_uses[l.name];
    auto link_series = [&](std::uint32_t link) {
      std::string name = link < log_.links.size() ? log_.links[link].name : fmt::format("link {}", link);
      if (name.empty() || link >= log_.links.size() || name_uses[name] > 1) name += fmt::format(" [{}]", link);
      return series(std::move(name), "utilisation_pct", false);
    };
    std::vector<std::size_t> order(log_.link_samples.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto& samples = log_.link_samples;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(samples[a].link, samples[a].time_ps, a) < std::tie(samples[b].link, samples[b].time_ps, b);
    });
    for (std::size_t k = 0; k < order.size(); ++k) {
      const LinkSample& s = samples[order[k]];
      // Of several samples at one instant the last recorded one holds (a step function).
      if (k + 1 < order.size() && samples[order[k + 1]].link == s.link && samples[order[k + 1]].time_ps == s.time_ps) continue;
      const double pct = std::isfinite(s.utilisation) ? s.utilisation * 100.0 : 0.0;
      counters_.push_back({links_pid_, s.time_ps, link_series(s.link), pct});
    }
  }

  // Sorts every track's slices by time and spreads slices that overlap over extra lanes.
  void pack_lanes() {
    std::sort(slices_.begin(), slices_.end(), [](const Slice& a, const Slice& b) {
      return std::tie(a.track, a.start_ps, a.end_ps, a.kind, a.ref) < std::tie(b.track, b.start_ps, b.end_ps, b.kind, b.ref);
    });
    lane_of_.assign(slices_.size(), 0);
    num_lanes_.assign(track_names_.size(), 1);
    track_begin_.assign(track_names_.size() + 1, 0);
    std::size_t i = 0;
    for (std::uint32_t t = 0; t < track_names_.size(); ++t) {
      track_begin_[t] = i;
      std::vector<Tick> lane_end;
      for (; i < slices_.size() && slices_[i].track == t; ++i) {
        std::size_t lane = 0;
        while (lane < lane_end.size() && lane_end[lane] > slices_[i].start_ps) ++lane;
        if (lane == lane_end.size()) lane_end.push_back(0);
        lane_end[lane] = slices_[i].end_ps;
        lane_of_[i] = static_cast<std::uint32_t>(lane);
      }
      num_lanes_[t] = static_cast<std::uint32_t>(std::max<std::size_t>(1, lane_end.size()));
    }
    track_begin_[track_names_.size()] = i;
    // Sort by time per counter process: every (pid, tid = pid) sequence is then monotonic.
    std::sort(counters_.begin(), counters_.end(), [](const CounterSample& a, const CounterSample& b) {
      return std::tie(a.pid, a.ts_ps, a.series) < std::tie(b.pid, b.ts_ps, b.series);
    });
  }

  void begin_event() {
    out_ += first_event_ ? "\n" : ",\n";
    first_event_ = false;
  }

  void metadata_event(std::uint32_t pid, std::uint32_t tid, std::string_view what, std::string_view arg_json) {
    begin_event();
    fmt::format_to(std::back_inserter(out_), R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{}}})", pid, tid, what,
                   arg_json);
  }

  void slice_event(std::uint32_t pid, std::uint32_t tid, const Slice& s) {
    begin_event();
    out_ += R"({"ph":"X","pid":)";
    append_uint(out_, pid);
    out_ += R"(,"tid":)";
    append_uint(out_, tid);
    out_ += R"(,"ts":)";
    append_us(out_, s.start_ps);
    out_ += ",\"dur\":";
    append_us(out_, s.end_ps - s.start_ps);
    auto tail = [&](std::string_view name_json, std::string_view cat, std::string_view cname) {
      out_ += R"(,"name":)";
      out_ += name_json;
      out_ += R"(,"cat":")";
      out_ += cat;
      out_ += R"(","cname":")";
      out_ += cname;
      out_ += R"(","args":)";
    };
    switch (s.kind) {
      case SliceKind::kWorkgroup: {
        const WorkgroupSlice& w = log_.slices[s.ref];
        tail(category_names_json_[static_cast<std::size_t>(w.category) % category_names_json_.size()], "workgroup",
             category_style(w.category).trace_cname);
        out_ += R"({"kernel":)";
        out_ += kernel_name_json(w.kernel);
        out_ += R"(,"workgroup":)";
        append_uint(out_, w.workgroup);
        out_ += "}}";
        break;
      }
      case SliceKind::kBreakdown: {
        const GpuStretch& g = log_.gpu_stretches[s.ref];
        tail(category_names_json_[static_cast<std::size_t>(g.category) % category_names_json_.size()], "breakdown",
             category_style(g.category).trace_cname);
        out_ += "{}}";
        break;
      }
      case SliceKind::kLaunch:
        tail("\"launch\"", "kernel", category_style(TimeCategory::kLaunchOverhead).trace_cname);
        fmt::format_to(std::back_inserter(out_), R"({{"kernel":{}}}}})", kernel_name_json(s.ref));
        break;
      case SliceKind::kKernel:
        tail(kernel_name_json(s.ref), "kernel", kKernelCname);
        out_ += kernels_[s.ref].args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        out_ += '}';
        break;
      case SliceKind::kFlagRelease:
      case SliceKind::kFlagAcquire: {
        const FlagEdge& f = log_.flags[flag_order_[s.ref]];
        const bool release = s.kind == SliceKind::kFlagRelease;
        tail(release ? "\"flag release\"" : "\"flag acquire\"", "flag", kFlagCname);
        const double wait_ns = (static_cast<double>(f.acquire_ps) - static_cast<double>(f.release_ps)) / 1e3;
        fmt::format_to(std::back_inserter(out_), R"({{"{}":{},"{}":{},"wait_ns":{:.3f}}}}})",
                       release ? "acquire_rank" : "release_rank", release ? f.acquire_rank : f.release_rank,
                       release ? "acquire_cu" : "release_cu", release ? f.acquire_cu : f.release_cu, wait_ns);
        // The arrow's end binds to the anchor slice that encloses it ("bp":"e"), on both ends.
        begin_event();
        fmt::format_to(std::back_inserter(out_), R"({{"ph":"{}","pid":{},"tid":{},"ts":)", release ? 's' : 'f', pid, tid);
        append_us(out_, s.start_ps);
        fmt::format_to(std::back_inserter(out_), R"(,"name":"flag","cat":"flag","id":{},"bp":"e"}})", s.ref + 1);
        break;
      }
    }
  }

  void counter_event(const CounterSample& c) {
    const CounterSeries& s = series_[c.series];
    begin_event();
    fmt::format_to(std::back_inserter(out_), R"({{"ph":"C","pid":{},"tid":{},"ts":)", c.pid, c.pid);
    append_us(out_, c.ts_ps);
    if (s.integral) {
      fmt::format_to(std::back_inserter(out_), R"(,"name":{},"args":{{{}:{}}}}})", s.name_json, s.arg_json,
                     static_cast<long long>(c.value));
    } else {
      fmt::format_to(std::back_inserter(out_), R"(,"name":{},"args":{{{}:{:.3f}}}}})", s.name_json, s.arg_json, c.value);
    }
  }

  const std::string& kernel_name_json(std::uint32_t kernel) {
    if (kernel < kernel_names_json_.size()) return kernel_names_json_[kernel];
    auto [it, inserted] = unknown_kernel_names_json_.try_emplace(kernel);
    if (inserted) it->second = json_string(fmt::format("kernel {}", kernel));
    return it->second;
  }

  nlohmann::json metadata() const {
    nlohmann::json m = nlohmann::json::object();
    m["generator"] = "tessera";
    m["tessera_version"] = result_.tessera_version;
    m["system"] = result_.system;
    m["workload"] = result_.workload;
    if (const auto variant = result_.variant()) m["variant"] = *variant;
    if (const auto mapping = result_.mapping()) m["mapping"] = *mapping;
    m["makespan_ns"] = result_.makespan_ns();
    m["complete"] = result_.result.complete;
    m["time_unit"] = "ts and dur are microseconds; their six decimals resolve picoseconds";
    m["activity_truncated"] = log_.truncated;
    if (log_.truncated) {
      m["activity_truncation"] =
          "the activity log reached its limit (ReplayOptions::max_recorded): workgroup slices, flag arrows and "
          "link samples after that point are missing; the summary and its taxes are complete";
    }
    m["recorded"] = {{"workgroup_slices", log_.slices.size()},
                     {"flag_edges", log_.flags.size()},
                     {"link_samples", log_.link_samples.size()}};
    nlohmann::json links = nlohmann::json::array();
    for (const auto& l : log_.links) {
      links.push_back({{"name", l.name}, {"class", l.link_class}, {"capacity_bytes_per_s", l.capacity_bytes_per_s}});
    }
    m["links"] = std::move(links);
    nlohmann::json colours = nlohmann::json::object();
    for (TimeCategory c : kAllCategories) colours[std::string(workloads::replay::to_string(c))] = category_style(c).trace_cname;
    m["category_cnames"] = std::move(colours);
    return m;
  }

  std::string render() {
    // Threads in display order: one per lane of each track.
    struct Thread {
      std::uint32_t pid;
      std::uint32_t tid;
      std::uint32_t track;
      std::uint32_t lane;
      std::uint32_t sort_index;
    };
    std::vector<Thread> threads;
    std::uint32_t next_tid = first_tid_;
    std::map<std::uint32_t, std::uint32_t> next_sort_index;
    for (const auto& [key, t] : track_index_) {
      for (std::uint32_t lane = 0; lane < num_lanes_[t]; ++lane) {
        threads.push_back({key.pid, next_tid++, t, lane, next_sort_index[key.pid]++});
      }
    }
    std::set<std::uint32_t> pids;
    for (std::uint32_t r : ranks_) pids.insert(pid_of_rank(r));
    if (has_links_) pids.insert(links_pid_);

    out_.reserve(slices_.size() * 190 + counters_.size() * 110 + 4096);
    out_ += "{\"traceEvents\":[";
    for (std::uint32_t pid : pids) {
      const bool links = has_links_ && pid == links_pid_;
      const std::string name = links ? "links" : fmt::format("GPU {}", pid - 1);
      metadata_event(pid, pid, "process_name", fmt::format(R"({{"name":{}}})", json_string(name)));
      metadata_event(pid, pid, "process_sort_index", fmt::format(R"({{"sort_index":{}}})", pid));
    }
    for (const Thread& th : threads) {
      std::string name = track_names_[th.track];
      if (th.lane > 0) name += fmt::format(" (overlap {})", th.lane);
      metadata_event(th.pid, th.tid, "thread_name", fmt::format(R"({{"name":{}}})", json_string(name)));
      metadata_event(th.pid, th.tid, "thread_sort_index", fmt::format(R"({{"sort_index":{}}})", th.sort_index));
    }
    std::size_t c = 0;
    std::size_t th = 0;
    for (std::uint32_t pid : pids) {
      for (; c < counters_.size() && counters_[c].pid == pid; ++c) counter_event(counters_[c]);
      for (; th < threads.size() && threads[th].pid == pid; ++th) {
        const Thread& thread = threads[th];
        for (std::size_t i = track_begin_[thread.track]; i < track_begin_[thread.track + 1]; ++i) {
          if (lane_of_[i] == thread.lane) slice_event(pid, thread.tid, slices_[i]);
        }
      }
    }
    out_ += "\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":";
    out_ += metadata().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out_ += "}\n";
    return std::move(out_);
  }

  const run::RunResult& result_;
  ActivityDetail detail_;
  const ActivityLog& log_;
  std::vector<KernelRow> kernels_;
  std::vector<std::string> kernel_names_json_;  // escaped once: workgroup slices repeat them
  std::map<std::uint32_t, std::string> unknown_kernel_names_json_;
  std::array<std::string, kAllCategories.size()> category_names_json_;  // by TimeCategory value
  std::set<std::uint32_t> ranks_;
  bool has_links_ = false;
  std::uint32_t links_pid_ = 1;
  std::uint32_t first_tid_ = 2;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> die_of_cu_;  // (rank, cu) -> XCD
  std::map<TrackKey, std::uint32_t> track_index_;
  std::vector<std::string> track_names_;
  std::vector<Slice> slices_;
  std::vector<std::size_t> flag_order_;  // canonical position -> index into log_.flags
  std::vector<std::uint32_t> lane_of_;
  std::vector<std::uint32_t> num_lanes_;
  std::vector<std::size_t> track_begin_;
  std::map<std::string, std::uint32_t> series_index_;
  std::vector<CounterSeries> series_;
  std::vector<CounterSample> counters_;
  std::string out_;
  bool first_event_ = true;
};

}  // namespace

std::string timeline_json(const run::RunResult& result, const workloads::replay::ActivityLog& log,
                          workloads::replay::ActivityDetail detail) {
  return TimelineWriter(result, log, detail).write();
}

}  // namespace tessera::app::report
