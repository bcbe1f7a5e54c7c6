#include "workloads/trace/trace_text.h"

#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <unordered_map>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/io/strict_json.h"
#include "sim/config/suggest.h"
#include "sim/config/units.h"

namespace tessera::workloads::trace {
namespace {

using nlohmann::json;
using models::compute::Dtype;
using models::sync::Compare;

// Nothing else in the text form bounds the rank count; this keeps a typo from allocating a
// host command list for each of billions of ranks.
constexpr std::uint32_t kMaxRanks = 1u << 20;
// A sync or barrier line without a rank adds a command to every rank: with many ranks, a few
// lines of text would ask for gigabytes of host lists. Real traces hold thousands.
constexpr std::uint64_t kMaxHostCommands = 1u << 20;

constexpr std::array<Compare, 6> kCompares = {Compare::kEq, Compare::kNe, Compare::kGe,
                                               Compare::kGt, Compare::kLe, Compare::kLt};
constexpr std::array<Dtype, 4> kDtypes = {Dtype::kFp16, Dtype::kBf16, Dtype::kFp8, Dtype::kFp32};
constexpr std::array<BarrierScope, 3> kScopes = {BarrierScope::kWorkgroup, BarrierScope::kDevice, BarrierScope::kAllRanks};
constexpr std::array<Coherence, 2> kCoherences = {Coherence::kCoarse, Coherence::kFine};
constexpr std::array<HostOp, 4> kHostOps = {HostOp::kLaunch, HostOp::kSync, HostOp::kRankBarrier, HostOp::kDelay};
constexpr std::array<OpKind, 15> kOpKinds = {OpKind::kCompute,    OpKind::kLoad,    OpKind::kStore,   OpKind::kAtomicAdd,
                                             OpKind::kAtomicXchg, OpKind::kRelease, OpKind::kWait,    OpKind::kBarrier,
                                             OpKind::kLoop,       OpKind::kEndLoop, OpKind::kSet,     OpKind::kAtomicAddRange,
                                             OpKind::kLoadAsync,  OpKind::kWaitLoad, OpKind::kDelay};

// Letters rather than compare_name()'s symbols: easier to type and to read in JSON.
std::string_view compare_text(Compare c) {
  switch (c) {
    case Compare::kEq: return "eq";
    case Compare::kNe: return "ne";
    case Compare::kGe: return "ge";
    case Compare::kGt: return "gt";
    case Compare::kLe: return "le";
    case Compare::kLt: return "lt";
  }
  return "?";
}

std::string_view host_op_text(HostOp op) {
  switch (op) {
    case HostOp::kLaunch: return "launch";
    case HostOp::kSync: return "sync";
    case HostOp::kRankBarrier: return "rank_barrier";
    case HostOp::kDelay: return "delay";
  }
  return "?";
}

// The keys of each op, "op" first, in the order the writer writes them.
const std::vector<std::string>& op_keys(OpKind kind) {
  static const std::vector<std::string> kCompute = {"op", "flops", "dtype", "lds_bytes", "sfu_ops", "vector_ops", "phases"};
  static const std::vector<std::string> kMemory = {"op", "buffer", "rank", "offset", "bytes"};
  static const std::vector<std::string> kAtomicRange = {"op", "buffer", "rank", "offset", "bytes", "dtype"};
  static const std::vector<std::string> kLoadAsync = {"op", "buffer", "rank", "offset", "bytes", "slot"};
  static const std::vector<std::string> kWaitLoad = {"op", "slot"};
  static const std::vector<std::string> kAtomicAdd = {"op", "flag_rank", "flag_id", "operand"};
  static const std::vector<std::string> kFlagValue = {"op", "flag_rank", "flag_id", "value"};
  static const std::vector<std::string> kWait = {"op",    "flag_rank",      "flag_id",       "compare",
                                                 "value", "acquire_buffer", "acquire_offset", "acquire_bytes"};
  static const std::vector<std::string> kBarrier = {"op", "scope", "id"};
  static const std::vector<std::string> kLoop = {"op", "count"};
  static const std::vector<std::string> kEndLoop = {"op"};
  static const std::vector<std::string> kSet = {"op", "register", "value"};
  static const std::vector<std::string> kDelay = {"op", "ps"};
  switch (kind) {
    case OpKind::kCompute: return kCompute;
    case OpKind::kLoad:
    case OpKind::kStore: return kMemory;
    case OpKind::kAtomicAdd: return kAtomicAdd;
    case OpKind::kAtomicXchg:
    case OpKind::kRelease: return kFlagValue;
    case OpKind::kWait: return kWait;
    case OpKind::kBarrier: return kBarrier;
    case OpKind::kLoop: return kLoop;
    case OpKind::kEndLoop: return kEndLoop;
    case OpKind::kSet: return kSet;
    case OpKind::kAtomicAddRange: return kAtomicRange;
    case OpKind::kLoadAsync: return kLoadAsync;
    case OpKind::kWaitLoad: return kWaitLoad;
    case OpKind::kDelay: return kDelay;
  }
  return kEndLoop;
}

// A JSON value as it appears in a message: short, so that a long line stays readable.
std::string shown(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::string joined(std::span<const std::string> names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// "; did you mean 'x'?" when a candidate is close, else " (one of: a, b, c)".
std::string suggestion(std::string_view got, std::span<const std::string> candidates) {
  if (const auto near = sim::config::nearest(got, candidates)) return fmt::format("; did you mean '{}'?", *near);
  if (candidates.empty()) return "";
  return fmt::format(" (one of: {})", joined(candidates));
}

class TextReader {
 public:
  TextReader(std::istream& in, const std::string& file) : in_(in), file_(file) {}

  Trace read() {
    std::string text;
    while (std::getline(in_, text)) {
      ++line_;
      if (!text.empty() && text.back() == '\r') text.pop_back();
      if (text.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines are allowed
      read_record(parse(text));
    }
    if (in_.bad()) throw TraceError::in_file(file_, "read error");
    if (!have_header_) {
      throw TraceError::in_file(file_, "no header: the first line must be {\"tessera_trace\": 1, \"ranks\": N}");
    }
    for (std::size_t k = 0; k < trace_.kernels.size(); ++k) {
      if (launched_[k]) continue;
      const Kernel& kn = trace_.kernels[k];
      throw TraceError::at_line(file_, kernel_lines_[k],
                                fmt::format("kernel '{}' (index {}) is never launched: add {{\"host\": \"launch\", "
                                            "\"rank\": {}, \"kernel\": {}}}",
                                            kn.name, k, kn.rank, k));
    }
    // The records' own checks cover the rules; this is the safety net for any that they miss.
    if (const auto problem = validate(trace_)) throw TraceError::in_file(file_, *problem);
    return std::move(trace_);
  }

 private:
  // The fields of one JSON object, with the key path that prefixes its messages.
  class Fields {
   public:
    Fields(const TextReader& reader, const json& object, std::string where)
        : reader_(reader), object_(object), where_(std::move(where)) {}

    // Every key must be one of `allowed`.
    void allow_only(std::span<const std::string> allowed, std::string_view what) const {
      for (const auto& [key, value] : object_.items()) {
        bool known = false;
        for (const std::string& a : allowed) known = known || a == key;
        if (known) continue;
        if (const auto near = sim::config::nearest(key, allowed)) {
          reader_.fail(path(key), fmt::format("unknown key; did you mean '{}'?", *near));
        }
        reader_.fail(path(key), fmt::format("unknown key ({} has: {})", what, joined(allowed)));
      }
    }
    const json* find(const std::string& key) const {
      const auto it = object_.find(key);
      return it == object_.end() ? nullptr : &*it;
    }
    const json& need(const std::string& key, std::string_view what) const {
      const json* j = find(key);
      if (j == nullptr) reader_.fail(where_, fmt::format("missing key '{}' ({} needs it)", key, what));
      return *j;
    }
    std::string path(std::string_view key) const { return where_.empty() ? std::string(key) : fmt::format("{}.{}", where_, key); }

    std::string string(const std::string& key, std::string_view what) const {
      const json& j = need(key, what);
      if (!j.is_string()) reader_.fail(path(key), "expected a string, got " + shown(j));
      return j.get<std::string>();
    }
    std::uint64_t unsigned_int(const std::string& key, std::string_view what, std::uint64_t max) const {
      return reader_.unsigned_of(need(key, what), path(key), max);
    }
    std::uint64_t unsigned_int_or(const std::string& key, std::uint64_t fallback, std::uint64_t max) const {
      const json* j = find(key);
      return j == nullptr ? fallback : reader_.unsigned_of(*j, path(key), max);
    }
    Expr expr(const std::string& key, std::string_view what) const { return reader_.expr_of(need(key, what), path(key)); }
    Expr expr_or(const std::string& key, Expr fallback) const {
      const json* j = find(key);
      return j == nullptr ? fallback : reader_.expr_of(*j, path(key));
    }

   private:
    const TextReader& reader_;
    const json& object_;
    std::string where_;
  };

  [[noreturn]] void fail(const std::string& where, const std::string& reason) const {
    throw TraceError::at_line(file_, line_, where.empty() ? reason : fmt::format("{}: {}", where, reason));
  }

  json parse(const std::string& text) const {
    json j;
    try {
      j = sim::io::parse_strict_json(text);
    } catch (const sim::io::StrictJsonError& e) {
      switch (e.kind) {
        case sim::io::StrictJsonError::Kind::kSyntax: fail("", fmt::format("bad JSON at column {}: {}", e.byte, e.what()));
        case sim::io::StrictJsonError::Kind::kNumber: fail("", fmt::format("bad JSON: {}", e.what()));
        case sim::io::StrictJsonError::Kind::kDuplicateKey: fail(e.key, "duplicate key");
      }
    }
    if (!j.is_object()) fail("", "expected a JSON object, got " + shown(j));
    return j;
  }

  std::int64_t integer_of(const json& j, const std::string& where) const {
    if (j.is_number_integer() && !j.is_number_unsigned()) return j.get<std::int64_t>();
    if (j.is_number_unsigned()) {
      const auto v = j.get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) fail(where, "integer out of range");
      return static_cast<std::int64_t>(v);
    }
    if (j.is_number_float()) {
      // Scripts often compute sizes in floating point (2.0 * m * n): accept whole values.
      const double v = j.get<double>();
      if (!std::isfinite(v) || std::trunc(v) != v) fail(where, "expected an integer, got " + shown(j));
      if (v < -9.2e18 || v > 9.2e18) fail(where, "integer out of range");
      return static_cast<std::int64_t>(v);
    }
    fail(where, "expected an integer, got " + shown(j));
  }

  std::uint64_t unsigned_of(const json& j, const std::string& where, std::uint64_t max) const {
    std::uint64_t v = 0;
    if (j.is_number_unsigned()) {
      v = j.get<std::uint64_t>();
    } else if (j.is_number()) {
      const std::int64_t s = integer_of(j, where);
      if (s < 0) fail(where, fmt::format("must not be negative, got {}", s));
      v = static_cast<std::uint64_t>(s);
    } else {
      fail(where, "expected a non-negative integer, got " + shown(j));
    }
    if (v > max) fail(where, fmt::format("{} is too large (at most {})", v, max));
    return v;
  }

  Expr expr_of(const json& j, const std::string& where) const {
    if (j.is_string()) {
      const std::string text = j.get<std::string>();
      std::string error;
      const std::optional<Expr> e = parse_expr(text, &error);
      if (!e) fail(where, fmt::format("bad expression \"{}\": {}", text, error));
      return *e;
    }
    if (j.is_number()) return Expr(integer_of(j, where));
    fail(where, "expected an expression (an integer, or a string like \"wg*4096 + 64\"), got " + shown(j));
  }

  // Names defined so far, in order, with an index: a trace may hold many thousands.
  struct Names {
    std::vector<std::string> in_order;
    std::unordered_map<std::string, std::uint32_t> index;

    bool add(const std::string& name) {
      if (!index.emplace(name, static_cast<std::uint32_t>(in_order.size())).second) return false;
      in_order.push_back(name);
      return true;
    }
  };

  // The index of the named thing, or an error with a suggestion.
  std::uint32_t lookup(const json& j, const std::string& where, std::string_view what, const Names& defined) const {
    if (!j.is_string()) fail(where, fmt::format("expected a {} name, got {}", what, shown(j)));
    const std::string name = j.get<std::string>();
    if (const auto it = defined.index.find(name); it != defined.index.end()) return it->second;
    const std::vector<std::string>& names = defined.in_order;
    if (names.empty()) fail(where, fmt::format("no {} '{}' (none is defined before this line)", what, name));
    fail(where, fmt::format("no {} '{}' defined before this line{}", what, name, suggestion(name, names)));
  }

  template <typename Value, std::size_t N, typename NameOf>
  Value choose(const json& j, const std::string& where, std::string_view what, const std::array<Value, N>& values,
               NameOf name_of) const {
    std::vector<std::string> names;
    for (const Value& v : values) names.emplace_back(name_of(v));
    if (!j.is_string()) fail(where, fmt::format("expected a {} name ({}), got {}", what, joined(names), shown(j)));
    const std::string got = j.get<std::string>();
    for (std::size_t i = 0; i < N; ++i) {
      if (names[i] == got) return values[i];
    }
    fail(where, fmt::format("unknown {} '{}'{}", what, got, suggestion(got, names)));
  }

  void read_record(const json& j) {
    // A kernel record also has a "program" key and a launch a "kernel" key: test in this order.
    const bool is_other = j.contains("host") || j.contains("kernel") || j.contains("program") || j.contains("buffer");
    const bool is_header = j.contains("tessera_trace") && !is_other;
    if (!is_header && !is_other) no_kind(j);
    if (!is_header && !have_header_) fail("", "the first record must be the header {\"tessera_trace\": 1, \"ranks\": N}");
    if (j.contains("host")) {
      read_host(j);
    } else if (j.contains("kernel")) {
      read_kernel(j);
    } else if (j.contains("program")) {
      read_program(j);
    } else if (j.contains("buffer")) {
      read_buffer(j);
    } else {
      read_header(j);
    }
  }

  [[noreturn]] void no_kind(const json& j) const {
    static const std::vector<std::string> kKinds = {"tessera_trace", "buffer", "program", "kernel", "host"};
    std::string near;
    for (const auto& [key, value] : j.items()) {
      if (const auto n = sim::config::nearest(key, kKinds)) near = fmt::format("; did you mean '{}' for '{}'?", *n, key);
    }
    fail("", fmt::format("no record kind: a record has one of the keys {}{}", joined(kKinds), near));
  }

  void read_header(const json& j) {
    static const std::vector<std::string> kKeys = {"tessera_trace", "ranks"};
    if (have_header_) fail("tessera_trace", "a second header (the header is the first record only)");
    const Fields f(*this, j, "");
    f.allow_only(kKeys, "the header");
    const std::uint64_t version = f.unsigned_int("tessera_trace", "the header", std::numeric_limits<std::uint32_t>::max());
    if (version < kOldestTraceVersion || version > kTraceVersion) {
      fail("tessera_trace", fmt::format("format version {} (this Tessera reads versions {} to {})", version,
                                        kOldestTraceVersion, kTraceVersion));
    }
    const std::uint64_t ranks = f.unsigned_int("ranks", "the header", kMaxRanks);
    if (ranks == 0) fail("ranks", "must be at least 1");
    trace_.version = static_cast<std::uint32_t>(version);
    trace_.ranks = static_cast<std::uint32_t>(ranks);
    trace_.host.assign(trace_.ranks, {});
    have_header_ = true;
  }

  void read_buffer(const json& j) {
    static const std::vector<std::string> kKeys = {"buffer", "bytes", "coherence"};
    const Fields f(*this, j, "");
    f.allow_only(kKeys, "a buffer record");
    Buffer b;
    b.name = f.string("buffer", "a buffer record");
    const json& bytes = f.need("bytes", "a buffer record");
    if (bytes.is_string()) {
      try {
        b.bytes = sim::config::parse_bytes(bytes.get<std::string>());
      } catch (const std::exception& e) {
        fail("bytes", e.what());
      }
    } else {
      b.bytes = unsigned_of(bytes, "bytes", std::numeric_limits<std::uint64_t>::max());
    }
    if (b.bytes == 0) fail("bytes", "a buffer's size must be positive");
    if (const json* c = f.find("coherence")) {
      b.coherence = choose(*c, f.path("coherence"), "coherence", kCoherences, coherence_name);
      if (trace_.version < kBufferCoherenceVersion) {
        fail("coherence", fmt::format("a buffer's coherence needs format version {} (the header says {})",
                                      kBufferCoherenceVersion, trace_.version));
      }
    }
    if (!buffers_.add(b.name)) fail("buffer", fmt::format("buffer '{}' is defined twice", b.name));
    trace_.buffers.push_back(std::move(b));
  }

  void read_program(const json& j) {
    static const std::vector<std::string> kKeys = {"program", "ops"};
    const Fields f(*this, j, "");
    f.allow_only(kKeys, "a program record");
    Program p;
    p.name = f.string("program", "a program record");
    if (programs_.index.count(p.name) != 0) fail("program", fmt::format("program '{}' is defined twice", p.name));
    const json& ops = f.need("ops", "a program record");
    if (!ops.is_array()) fail("ops", "expected an array of ops, got " + shown(ops));
    int depth = 0;
    p.instrs.reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      Instr in = read_op(ops[i], fmt::format("ops[{}]", i));
      if (in.kind == OpKind::kLoop && ++depth > kNumLoopVars) {
        fail(fmt::format("ops[{}]", i), fmt::format("loops nest deeper than {} (i0..i{})", kNumLoopVars, kNumLoopVars - 1));
      }
      if (in.kind == OpKind::kEndLoop && --depth < 0) fail(fmt::format("ops[{}]", i), "end_loop without a loop");
      p.instrs.push_back(std::move(in));
    }
    if (depth != 0) fail("ops", fmt::format("{} loop(s) without end_loop", depth));
    programs_.add(p.name);
    trace_.programs.push_back(std::move(p));
  }

  Instr read_op(const json& j, const std::string& where) const {
    if (!j.is_object()) fail(where, "expected an op object like {\"op\": \"load\", ...}, got " + shown(j));
    const Fields f(*this, j, where);
    Instr in;
    in.kind = choose(f.need("op", "an op"), f.path("op"), "op", kOpKinds, op_name);
    if (trace_.version < version_of(in.kind)) {
      fail(f.path("op"), fmt::format("{} needs format version {} (the header says {})", op_name(in.kind),
                                     version_of(in.kind), trace_.version));
    }
    const std::string what = fmt::format("a {} op", op_name(in.kind));
    f.allow_only(op_keys(in.kind), what);
    switch (in.kind) {
      case OpKind::kCompute:
        in.a = f.expr("flops", what);
        if (const json* d = f.find("dtype")) in.dtype = choose(*d, f.path("dtype"), "dtype", kDtypes, models::compute::dtype_name);
        for (const auto& [key, field] : {std::pair{"lds_bytes", &in.b}, std::pair{"sfu_ops", &in.c}, std::pair{"vector_ops", &in.d}, std::pair{"phases", &in.e}}) {
          if (f.find(key) == nullptr) continue;
          if (trace_.version < kComputeDemandVersion) {
            fail(f.path(key), fmt::format("a compute op's {} needs format version {} (the header says {})", key,
                                          kComputeDemandVersion, trace_.version));
          }
          *field = f.expr(key, what);
        }
        break;
      case OpKind::kLoad:
      case OpKind::kStore:
        in.buffer = lookup(f.need("buffer", what), f.path("buffer"), "buffer", buffers_);
        in.a = f.expr("rank", what);
        in.b = f.expr("offset", what);
        in.c = f.expr("bytes", what);
        break;
      case OpKind::kAtomicAdd:
      case OpKind::kAtomicXchg:
      case OpKind::kRelease:
        in.a = f.expr("flag_rank", what);
        in.b = f.expr("flag_id", what);
        in.c = f.expr(in.kind == OpKind::kAtomicAdd ? "operand" : "value", what);
        break;
      case OpKind::kWait:
        in.a = f.expr("flag_rank", what);
        in.b = f.expr("flag_id", what);
        in.c = f.expr("value", what);
        if (const json* c = f.find("compare")) in.compare = choose(*c, f.path("compare"), "compare", kCompares, compare_text);
        if (const json* b = f.find("acquire_buffer")) {
          in.buffer = lookup(*b, f.path("acquire_buffer"), "buffer", buffers_);
          in.d = f.expr("acquire_offset", "an acquire");
          in.e = f.expr("acquire_bytes", "an acquire");
        } else {
          for (const char* key : {"acquire_offset", "acquire_bytes"}) {
            if (f.find(key)) fail(f.path(key), "given without acquire_buffer");
          }
        }
        break;
      case OpKind::kBarrier:
        in.scope = choose(f.need("scope", what), f.path("scope"), "barrier scope", kScopes, scope_name);
        in.a = f.expr_or("id", 0);
        break;
      case OpKind::kLoop: in.a = f.expr("count", what); break;
      case OpKind::kEndLoop: break;
      case OpKind::kSet:
        in.target = register_of(f.need("register", what), f.path("register"));
        in.a = f.expr("value", what);
        break;
      case OpKind::kLoadAsync:
        in.buffer = lookup(f.need("buffer", what), f.path("buffer"), "buffer", buffers_);
        in.a = f.expr("rank", what);
        in.b = f.expr("offset", what);
        in.c = f.expr("bytes", what);
        in.target = slot_of(f.need("slot", what), f.path("slot"));
        break;
      case OpKind::kWaitLoad: in.target = slot_of(f.need("slot", what), f.path("slot")); break;
      case OpKind::kDelay: in.a = f.expr("ps", what); break;
      case OpKind::kAtomicAddRange:
        in.buffer = lookup(f.need("buffer", what), f.path("buffer"), "buffer", buffers_);
        in.a = f.expr("rank", what);
        in.b = f.expr("offset", what);
        in.c = f.expr("bytes", what);
        if (const json* d = f.find("dtype")) in.dtype = choose(*d, f.path("dtype"), "dtype", kDtypes, models::compute::dtype_name);
        break;
    }
    return in;
  }


  // A load slot, 0..kNumLoadSlots-1.
  std::uint8_t slot_of(const json& j, const std::string& where) const {
    const std::int64_t slot = integer_of(j, where);
    if (slot < 0 || slot >= kNumLoadSlots) fail(where, fmt::format("load slot {} (0..{})", slot, kNumLoadSlots - 1));
    return static_cast<std::uint8_t>(slot);
  }

  // "r3" or 3.
  std::uint8_t register_of(const json& j, const std::string& where) const {
    std::int64_t index = -1;
    if (j.is_string()) {
      const std::string s = j.get<std::string>();
      std::optional<Expr> e;
      if (s.size() >= 2 && s[0] == 'r') e = parse_expr(s);
      if (!e || e->num_terms != 1 || e->constant != 0 || e->terms[0].coef != 1 || e->terms[0].div != 1 ||
          e->terms[0].mod != 0 || e->terms[0].var < static_cast<std::uint8_t>(Var::kReg0)) {
        fail(where, fmt::format("expected a register r0..r{}, got {}", kNumRegs - 1, shown(j)));
      }
      index = e->terms[0].var - static_cast<int>(Var::kReg0);
    } else if (j.is_number()) {
      index = integer_of(j, where);
    } else {
      fail(where, fmt::format("expected a register r0..r{}, got {}", kNumRegs - 1, shown(j)));
    }
    if (index < 0 || index >= kNumRegs) fail(where, fmt::format("register {} (r0..r{})", index, kNumRegs - 1));
    return static_cast<std::uint8_t>(index);
  }

  void read_kernel(const json& j) {
    static const std::vector<std::string> kKeys = {"kernel",   "rank",     "stream",     "grid",  "program",  "args",
                                                   "cu_first", "cu_count", "collective", "waves", "registers", "lds_bytes"};
    constexpr std::string_view kWhat = "a kernel record";
    constexpr std::uint64_t kU32 = std::numeric_limits<std::uint32_t>::max();
    const Fields f(*this, j, "");
    f.allow_only(kKeys, kWhat);
    Kernel k;
    k.name = f.string("kernel", kWhat);
    k.rank = static_cast<std::uint32_t>(f.unsigned_int("rank", kWhat, kU32));
    if (k.rank >= trace_.ranks) fail("rank", fmt::format("rank {} of a {}-rank trace", k.rank, trace_.ranks));
    k.stream = static_cast<std::uint32_t>(f.unsigned_int_or("stream", 0, kMaxStreams - 1));
    k.grid = f.unsigned_int("grid", kWhat, std::numeric_limits<std::uint64_t>::max());
    if (k.grid == 0) fail("grid", "must be at least 1 workgroup");
    k.program = lookup(f.need("program", kWhat), "program", "program", programs_);
    if (const json* args = f.find("args")) {
      if (!args->is_array()) fail("args", "expected an array of expressions, got " + shown(*args));
      if (args->size() > static_cast<std::size_t>(kNumRegs)) {
        fail("args", fmt::format("{} arguments; at most {} (r0..r{})", args->size(), kNumRegs, kNumRegs - 1));
      }
      for (std::size_t i = 0; i < args->size(); ++i) {
        const std::string where = fmt::format("args[{}]", i);
        Expr e = expr_of((*args)[i], where);
        for (int t = 0; t < e.num_terms; ++t) {
          if (e.terms[t].var > static_cast<std::uint8_t>(Var::kNumRanks)) {
            fail(where, fmt::format("uses {}: arguments may use wg, nwg, rank, nranks only", var_name(e.terms[t].var)));
          }
        }
        k.args.push_back(std::move(e));
      }
    }
    k.cu_first = static_cast<std::uint32_t>(f.unsigned_int_or("cu_first", 0, kU32));
    k.cu_count = static_cast<std::uint32_t>(f.unsigned_int_or("cu_count", 0, kU32));
    if (const json* collective = f.find("collective")) {
      if (!collective->is_boolean()) fail("collective", "expected true or false, got " + shown(*collective));
      k.collective = collective->get<bool>();
    }
    for (const char* key : {"waves", "registers", "lds_bytes"}) {
      if (f.find(key) != nullptr && trace_.version < kKernelFootprintVersion) {
        fail(key, fmt::format("a kernel's footprint needs format version {} (the header says {})", kKernelFootprintVersion,
                              trace_.version));
      }
    }
    k.footprint.waves = static_cast<std::uint32_t>(f.unsigned_int_or("waves", 0, 1024));
    k.footprint.registers = static_cast<std::uint32_t>(f.unsigned_int_or("registers", 0, 1024));
    k.footprint.lds_bytes = f.unsigned_int_or("lds_bytes", 0, std::uint64_t{1} << 40);
    kernels_by_name_[k.name].push_back(static_cast<std::uint32_t>(trace_.kernels.size()));
    kernel_lines_.push_back(line_);
    launched_.push_back(false);
    trace_.kernels.push_back(std::move(k));
  }

  void read_host(const json& j) {
    static const std::vector<std::string> kLaunchKeys = {"host", "rank", "kernel"};
    static const std::vector<std::string> kDelayKeys = {"host", "rank", "delay_ps"};
    static const std::vector<std::string> kOtherKeys = {"host", "rank"};
    const Fields f(*this, j, "");
    const HostOp op = choose(*f.find("host"), "host", "host command", kHostOps, host_op_text);
    if (op == HostOp::kDelay && trace_.version < kHostDelayVersion) {
      fail("host", fmt::format("delay needs format version {} (the header says {})", kHostDelayVersion, trace_.version));
    }
    const std::string what = fmt::format("a {} command", host_op_text(op));
    f.allow_only(op == HostOp::kLaunch ? kLaunchKeys : op == HostOp::kDelay ? kDelayKeys : kOtherKeys, what);
    const std::uint64_t delay_ps = op == HostOp::kDelay ? f.unsigned_int("delay_ps", what, kMaxHostDelayPs) : 0;
    std::optional<std::uint32_t> rank;
    if (const json* r = f.find("rank")) {
      rank = static_cast<std::uint32_t>(unsigned_of(*r, "rank", std::numeric_limits<std::uint32_t>::max()));
      if (*rank >= trace_.ranks) fail("rank", fmt::format("rank {} of a {}-rank trace", *rank, trace_.ranks));
    }
    const std::uint64_t added = op != HostOp::kLaunch && !rank ? trace_.ranks : 1;
    if (num_host_commands_ + added > kMaxHostCommands) {
      fail("host", fmt::format("more than {} host commands over all ranks (one without a rank counts once for each "
                               "of the {} ranks)", kMaxHostCommands, trace_.ranks));
    }
    num_host_commands_ += added;
    if (op == HostOp::kDelay) add_delay(rank, delay_ps);
    if (op != HostOp::kLaunch) {
      // Without a rank: the command is on every rank.
      if (rank) {
        trace_.host[*rank].push_back({op, 0, delay_ps});
      } else {
        for (std::vector<HostCommand>& commands : trace_.host) commands.push_back({op, 0, delay_ps});
      }
      return;
    }
    const std::uint32_t k = kernel_of(f.need("kernel", what), rank);
    const Kernel& kn = trace_.kernels[k];
    if (rank && *rank != kn.rank) fail("rank", fmt::format("kernel {} ('{}') runs on rank {}, not {}", k, kn.name, kn.rank, *rank));
    if (launched_[k]) fail("kernel", fmt::format("kernel {} ('{}') is already launched (each kernel is launched once)", k, kn.name));
    launched_[k] = true;
    trace_.host[kn.rank].push_back({HostOp::kLaunch, k});
  }

  // Keeps each rank's delays within kMaxHostDelayPs in all (validate's rule), so that the line
  // that passes it is the one named. Without a rank, the delay is on every rank.
  void add_delay(std::optional<std::uint32_t> rank, std::uint64_t delay_ps) {
    if (delays_ps_.empty()) delays_ps_.assign(trace_.ranks, 0);
    for (std::uint32_t r = rank.value_or(0); r < (rank ? *rank + 1 : trace_.ranks); ++r) {
      // delay_ps is at most kMaxHostDelayPs and so is the sum before it: no wrap.
      if (delays_ps_[r] + delay_ps > kMaxHostDelayPs) {
        fail("delay_ps", fmt::format("rank {}'s host delays add up to {} ps, more than {} ps", r, delays_ps_[r] + delay_ps,
                                     kMaxHostDelayPs));
      }
      delays_ps_[r] += delay_ps;
    }
  }

  // A launch names its kernel by index (the count of kernel records before it) or by a name
  // that is unique among the kernels of its rank.
  std::uint32_t kernel_of(const json& j, std::optional<std::uint32_t> rank) const {
    if (j.is_number()) {
      const std::uint64_t k = unsigned_of(j, "kernel", std::numeric_limits<std::uint32_t>::max());
      if (k >= trace_.kernels.size()) {
        fail("kernel", fmt::format("kernel index {}, but {} kernel record(s) come before this line", k, trace_.kernels.size()));
      }
      return static_cast<std::uint32_t>(k);
    }
    if (!j.is_string()) fail("kernel", "expected a kernel index or name, got " + shown(j));
    const std::string name = j.get<std::string>();
    std::vector<std::uint32_t> matches;
    if (const auto it = kernels_by_name_.find(name); it != kernels_by_name_.end()) {
      for (std::uint32_t k : it->second) {
        if (!rank || trace_.kernels[k].rank == *rank) matches.push_back(k);
      }
    }
    const std::string on_rank = rank ? fmt::format(" on rank {}", *rank) : "";
    if (matches.empty()) {
      std::vector<std::string> names;
      for (const Kernel& kn : trace_.kernels) {
        if (!rank || kn.rank == *rank) names.push_back(kn.name);
      }
      fail("kernel", fmt::format("no kernel '{}'{} defined before this line{}", name, on_rank, suggestion(name, names)));
    }
    if (matches.size() > 1) {
      fail("kernel", fmt::format("{} kernels named '{}'{}: name it by index instead", matches.size(), name, on_rank));
    }
    return matches[0];
  }

  std::istream& in_;
  const std::string& file_;
  std::uint64_t line_ = 0;
  bool have_header_ = false;
  Trace trace_;
  Names buffers_;
  Names programs_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> kernels_by_name_;
  std::vector<std::uint64_t> kernel_lines_;  // the line of each kernel record
  std::vector<bool> launched_;
  std::uint64_t num_host_commands_ = 0;  // over all ranks, against kMaxHostCommands
  std::vector<std::uint64_t> delays_ps_;  // per rank, the host delays so far (empty until the first)
};

using ojson = nlohmann::ordered_json;

ojson expr_json(const Expr& e) { return e.is_constant() ? ojson(e.constant) : ojson(to_string(e)); }

ojson op_json(const Instr& in, const Trace& t) {
  ojson o;
  o["op"] = op_name(in.kind);
  const auto buffer_name = [&t](std::uint32_t b) { return b < t.buffers.size() ? t.buffers[b].name : std::string("?"); };
  switch (in.kind) {
    case OpKind::kCompute:
      o["flops"] = expr_json(in.a);
      o["dtype"] = models::compute::dtype_name(in.dtype);
      if (!(in.b == Expr())) o["lds_bytes"] = expr_json(in.b);
      if (!(in.c == Expr())) o["sfu_ops"] = expr_json(in.c);
      if (!(in.d == Expr())) o["vector_ops"] = expr_json(in.d);
      if (!(in.e == Expr())) o["phases"] = expr_json(in.e);
      break;
    case OpKind::kLoad:
    case OpKind::kStore:
      o["buffer"] = buffer_name(in.buffer);
      o["rank"] = expr_json(in.a);
      o["offset"] = expr_json(in.b);
      o["bytes"] = expr_json(in.c);
      break;
    case OpKind::kAtomicAdd:
    case OpKind::kAtomicXchg:
    case OpKind::kRelease:
      o["flag_rank"] = expr_json(in.a);
      o["flag_id"] = expr_json(in.b);
      o[in.kind == OpKind::kAtomicAdd ? "operand" : "value"] = expr_json(in.c);
      break;
    case OpKind::kWait:
      o["flag_rank"] = expr_json(in.a);
      o["flag_id"] = expr_json(in.b);
      o["compare"] = compare_text(in.compare);
      o["value"] = expr_json(in.c);
      if (in.buffer != kNoBuffer) {
        o["acquire_buffer"] = buffer_name(in.buffer);
        o["acquire_offset"] = expr_json(in.d);
        o["acquire_bytes"] = expr_json(in.e);
      }
      break;
    case OpKind::kBarrier:
      o["scope"] = scope_name(in.scope);
      o["id"] = expr_json(in.a);
      break;
    case OpKind::kLoop: o["count"] = expr_json(in.a); break;
    case OpKind::kEndLoop: break;
    case OpKind::kSet:
      o["register"] = fmt::format("r{}", in.target);
      o["value"] = expr_json(in.a);
      break;
    case OpKind::kAtomicAddRange:
      o["buffer"] = buffer_name(in.buffer);
      o["rank"] = expr_json(in.a);
      o["offset"] = expr_json(in.b);
      o["bytes"] = expr_json(in.c);
      o["dtype"] = models::compute::dtype_name(in.dtype);
      break;
    case OpKind::kLoadAsync:
      o["buffer"] = buffer_name(in.buffer);
      o["rank"] = expr_json(in.a);
      o["offset"] = expr_json(in.b);
      o["bytes"] = expr_json(in.c);
      o["slot"] = in.target;
      break;
    case OpKind::kWaitLoad: o["slot"] = in.target; break;
    case OpKind::kDelay: o["ps"] = expr_json(in.a); break;
  }
  return o;
}

void write_host(std::ostream& out, const Trace& t) {
  const auto command = [&out](std::uint32_t rank, const HostCommand& c) {
    ojson o;
    o["host"] = host_op_text(c.op);
    o["rank"] = rank;
    if (c.op == HostOp::kLaunch) o["kernel"] = c.kernel;
    if (c.op == HostOp::kDelay) o["delay_ps"] = c.delay_ps;
    out << o.dump() << "\n";
  };
  // When every rank has the same number of barriers (always, in a trace that can run), write
  // the ranks in step, one all-rank barrier line per barrier, as a person would.
  std::vector<std::size_t> barriers(t.host.size(), 0);
  for (std::size_t r = 0; r < t.host.size(); ++r) {
    for (const HostCommand& c : t.host[r]) barriers[r] += c.op == HostOp::kRankBarrier ? 1 : 0;
  }
  bool in_step = t.host.size() == t.ranks;
  for (std::size_t n : barriers) in_step = in_step && n == barriers.front();
  if (!in_step) {
    for (std::uint32_t r = 0; r < t.host.size(); ++r) {
      for (const HostCommand& c : t.host[r]) command(r, c);
    }
    return;
  }
  std::vector<std::size_t> next(t.host.size(), 0);
  for (std::size_t segment = 0; segment <= barriers.front(); ++segment) {
    for (std::uint32_t r = 0; r < t.host.size(); ++r) {
      for (; next[r] < t.host[r].size(); ++next[r]) {
        const HostCommand& c = t.host[r][next[r]];
        if (c.op == HostOp::kRankBarrier) {
          ++next[r];
          break;
        }
        command(r, c);
      }
    }
    if (segment < barriers.front()) out << R"({"host":"rank_barrier"})" << "\n";
  }
}

}  // namespace

Trace read_trace_text(std::istream& in, const std::string& file_name) { return TextReader(in, file_name).read(); }

void write_trace_text(std::ostream& out, const Trace& t) {
  ojson header;
  header["tessera_trace"] = t.version;
  header["ranks"] = t.ranks;
  out << header.dump() << "\n";
  for (const Buffer& b : t.buffers) {
    ojson o;
    o["buffer"] = b.name;
    o["bytes"] = b.bytes;
    if (b.coherence != Coherence::kCoarse) o["coherence"] = coherence_name(b.coherence);
    out << o.dump() << "\n";
  }
  for (const Program& p : t.programs) {
    ojson o;
    o["program"] = p.name;
    ojson ops = ojson::array();
    for (const Instr& in : p.instrs) ops.push_back(op_json(in, t));
    o["ops"] = std::move(ops);
    out << o.dump() << "\n";
  }
  for (const Kernel& k : t.kernels) {
    ojson o;
    o["kernel"] = k.name;
    o["rank"] = k.rank;
    o["stream"] = k.stream;
    o["grid"] = k.grid;
    o["program"] = k.program < t.programs.size() ? t.programs[k.program].name : std::string("?");
    if (!k.args.empty()) {
      ojson args = ojson::array();
      for (const Expr& e : k.args) args.push_back(expr_json(e));
      o["args"] = std::move(args);
    }
    if (k.cu_first != 0) o["cu_first"] = k.cu_first;
    if (k.cu_count != 0) o["cu_count"] = k.cu_count;
    if (k.collective) o["collective"] = true;
    if (k.footprint.waves != 0) o["waves"] = k.footprint.waves;
    if (k.footprint.registers != 0) o["registers"] = k.footprint.registers;
    if (k.footprint.lds_bytes != 0) o["lds_bytes"] = k.footprint.lds_bytes;
    out << o.dump() << "\n";
  }
  write_host(out, t);
}

}  // namespace tessera::workloads::trace
