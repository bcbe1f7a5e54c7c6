#include "workloads/trace/trace_binary.h"

#include <array>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "sim/config/utf8.h"

namespace tessera::workloads::trace {
namespace {

// The smallest encoding of each repeated item: a count is checked against the bytes left
// divided by these before anything is reserved.
constexpr std::size_t kMinBufferBytes = 4 + 8;                  // name length, size
constexpr std::size_t kMinProgramBytes = 4 + 4;                 // name length, instruction count
constexpr std::size_t kMinInstrBytes = 6 + 4;                   // five enums and the mask, buffer
constexpr std::size_t kMinExprBytes = 8 + 1;                    // constant, term count
constexpr std::size_t kMinKernelBytes = 4 + 4 + 4 + 8 + 4 + 4 + 4 + 1;  // ..., argument count
constexpr std::size_t kHostListBytes = 4;                       // command count
constexpr std::size_t kHostCommandBytes = 1 + 4;                // op, kernel (a delay adds its u64)

// An instruction stores only the expressions that differ from the default (a constant 0);
// bit i of its mask says that expression i of (a, b, c, d, e) follows.
constexpr int kNumExprFields = 5;
std::array<const Expr*, kNumExprFields> exprs_of(const Instr& in) { return {&in.a, &in.b, &in.c, &in.d, &in.e}; }
std::array<Expr*, kNumExprFields> exprs_of(Instr& in) { return {&in.a, &in.b, &in.c, &in.d, &in.e}; }

class ByteWriter {
 public:
  explicit ByteWriter(std::ostream& out) : out_(out) {}

  void u8(std::uint8_t v) { out_.put(static_cast<char>(v)); }
  void u32(std::uint32_t v) { little_endian(v, 4); }
  void u64(std::uint64_t v) { little_endian(v, 8); }
  void i64(std::int64_t v) { little_endian(static_cast<std::uint64_t>(v), 8); }
  void str(const std::string& s) {
    u32(count(s.size()));
    out_.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  std::uint32_t count(std::size_t n) {
    if (n > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("trace too large for the binary form");
    return static_cast<std::uint32_t>(n);
  }
  void expr(const Expr& e) {
    i64(e.constant);
    u8(e.num_terms);
    for (int i = 0; i < e.num_terms; ++i) {
      const Term& t = e.terms[i];
      i64(t.coef);
      u8(t.var);
      u32(t.div);
      u32(t.mod);
    }
  }

 private:
  void little_endian(std::uint64_t v, int bytes) {
    char b[8];
    for (int i = 0; i < bytes; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    out_.write(b, bytes);
  }
  std::ostream& out_;
};

// What is being read, for messages: "program 2 instruction 5". Kept as numbers and formatted
// only on failure, since the reader passes through it for every field.
struct Place {
  const char* item = nullptr;  // nullptr: the file header
  std::size_t index = 0;
  const char* part = nullptr;  // nullptr: the item itself
  std::size_t part_index = 0;

  std::string describe(std::string_view field) const {
    std::string out;
    if (item != nullptr) out = fmt::format("{} {} ", item, index);
    if (part != nullptr) out += fmt::format("{} {} ", part, part_index);
    return out + std::string(field);
  }
};

class ByteReader {
 public:
  ByteReader(std::string data, const std::string& file) : data_(std::move(data)), file_(file) {}

  [[noreturn]] void fail(std::size_t offset, const std::string& reason) const { throw TraceError::at_byte(file_, offset, reason); }
  [[noreturn]] void fail_field(std::size_t offset, std::string_view field, const std::string& reason) const {
    fail(offset, fmt::format("{}: {}", place_.describe(field), reason));
  }
  void at(Place place) { place_ = place; }
  std::size_t offset() const { return pos_; }
  std::size_t left() const { return data_.size() - pos_; }

  bool skip_magic(std::string_view magic) {
    if (left() < magic.size() || std::string_view(data_).substr(pos_, magic.size()) != magic) return false;
    pos_ += magic.size();
    return true;
  }
  std::uint8_t u8(std::string_view field) { return static_cast<std::uint8_t>(little_endian(1, field)); }
  std::uint32_t u32(std::string_view field) { return static_cast<std::uint32_t>(little_endian(4, field)); }
  std::uint64_t u64(std::string_view field) { return little_endian(8, field); }
  std::int64_t i64(std::string_view field) { return static_cast<std::int64_t>(little_endian(8, field)); }
  std::string str(std::string_view field) {
    const std::size_t at = pos_;
    const std::uint32_t n = u32(field);
    if (n > left()) fail_field(at, field, fmt::format("length {} but only {} bytes left (truncated or corrupt)", n, left()));
    std::string s = data_.substr(pos_, n);
    // The text form holds names as JSON strings, which are UTF-8: a binary trace must not hold
    // a name that `trace convert` could not write as text.
    if (!sim::config::is_utf8(s)) fail_field(at, field, "not valid UTF-8 (corrupt)");
    pos_ += n;
    return s;
  }
  // A count of items of at least `min_item_bytes` each: more than the bytes left can hold is
  // corruption, found before the caller reserves room for them.
  std::uint32_t count(std::string_view field, std::size_t min_item_bytes) {
    const std::size_t at = pos_;
    const std::uint32_t n = u32(field);
    if (static_cast<std::uint64_t>(n) * min_item_bytes > left()) {
      fail_field(at, field, fmt::format("{} cannot fit in the {} bytes left (truncated or corrupt)", n, left()));
    }
    return n;
  }
  // An enum stored as a byte, checked against its last value.
  template <typename Enum>
  Enum enumerated(std::string_view field, Enum last) {
    const std::size_t at = pos_;
    const std::uint8_t v = u8(field);
    if (v > static_cast<std::uint8_t>(last)) fail_field(at, field, fmt::format("{} is out of range (corrupt)", v));
    return static_cast<Enum>(v);
  }
  Expr expr(std::string_view field) {
    Expr e;
    e.constant = i64(field);
    const std::size_t at = pos_;
    e.num_terms = u8(field);
    if (e.num_terms > Expr::kMaxTerms) {
      fail_field(at, field, fmt::format("{} terms (at most {}; corrupt)", e.num_terms, Expr::kMaxTerms));
    }
    for (int i = 0; i < e.num_terms; ++i) {
      Term& t = e.terms[i];
      const std::size_t term_at = pos_;
      t.coef = i64(field);
      // The writer never writes these (Expr::add drops a zero term and merges repeated ones), and
      // the text form could not keep them: its reader does the same.
      if (t.coef == 0) fail_field(term_at, field, "a term with coefficient 0 (corrupt)");
      const std::size_t var_at = pos_;
      t.var = u8(field);
      if (t.var >= kNumVars) fail_field(var_at, field, fmt::format("variable {} is out of range (corrupt)", t.var));
      const std::size_t div_at = pos_;
      t.div = u32(field);
      if (t.div == 0) fail_field(div_at, field, "division by zero (corrupt)");
      t.mod = u32(field);
      for (int k = 0; k < i; ++k) {
        const Term& earlier = e.terms[k];
        if (earlier.var == t.var && earlier.div == t.div && earlier.mod == t.mod) {
          fail_field(term_at, field, fmt::format("term {} repeats the variable, divisor and modulus of term {} (corrupt)", i, k));
        }
      }
    }
    return e;
  }

 private:
  std::uint64_t little_endian(int bytes, std::string_view field) {
    if (left() < static_cast<std::size_t>(bytes)) {
      fail_field(pos_, field, fmt::format("truncated: {} bytes needed, {} left", bytes, left()));
    }
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    pos_ += static_cast<std::size_t>(bytes);
    return v;
  }

  std::string data_;
  const std::string& file_;
  std::size_t pos_ = 0;
  Place place_;
};

Instr read_instr(ByteReader& r) {
  static constexpr std::array<std::string_view, kNumExprFields> kExprNames = {"expression a", "expression b", "expression c",
                                                                             "expression d", "expression e"};
  Instr in;
  in.kind = r.enumerated("op", OpKind::kDelay);
  in.dtype = r.enumerated("dtype", models::compute::Dtype::kFp32);
  in.compare = r.enumerated("compare", models::sync::Compare::kLt);
  in.scope = r.enumerated("scope", BarrierScope::kAllRanks);
  in.target = r.u8("register");
  const std::size_t mask_at = r.offset();
  const std::uint8_t mask = r.u8("expression mask");
  if (mask >> kNumExprFields != 0) r.fail_field(mask_at, "expression mask", fmt::format("{:#x} is out of range (corrupt)", mask));
  in.buffer = r.u32("buffer");
  const auto exprs = exprs_of(in);
  for (int i = 0; i < kNumExprFields; ++i) {
    if ((mask >> i) & 1) *exprs[i] = r.expr(kExprNames[i]);
  }
  return in;
}

}  // namespace

void write_trace_binary(std::ostream& out, const Trace& t) {
  ByteWriter w(out);
  out.write(kBinaryMagic.data(), static_cast<std::streamsize>(kBinaryMagic.size()));
  w.u32(t.version);
  w.u32(t.ranks);
  w.u32(w.count(t.buffers.size()));
  for (const Buffer& b : t.buffers) {
    w.str(b.name);
    w.u64(b.bytes);
    if (t.version >= kBufferCoherenceVersion) w.u8(static_cast<std::uint8_t>(b.coherence));
  }
  w.u32(w.count(t.programs.size()));
  for (const Program& p : t.programs) {
    w.str(p.name);
    w.u32(w.count(p.instrs.size()));
    for (const Instr& in : p.instrs) {
      w.u8(static_cast<std::uint8_t>(in.kind));
      w.u8(static_cast<std::uint8_t>(in.dtype));
      w.u8(static_cast<std::uint8_t>(in.compare));
      w.u8(static_cast<std::uint8_t>(in.scope));
      w.u8(in.target);
      const auto exprs = exprs_of(in);
      std::uint8_t mask = 0;
      for (int i = 0; i < kNumExprFields; ++i) {
        if (!(*exprs[i] == Expr())) mask |= static_cast<std::uint8_t>(1u << i);
      }
      w.u8(mask);
      w.u32(in.buffer);
      for (int i = 0; i < kNumExprFields; ++i) {
        if ((mask >> i) & 1) w.expr(*exprs[i]);
      }
    }
  }
  w.u32(w.count(t.kernels.size()));
  for (const Kernel& k : t.kernels) {
    w.str(k.name);
    w.u32(k.rank);
    w.u32(k.stream);
    w.u64(k.grid);
    w.u32(k.program);
    w.u32(k.cu_first);
    w.u32(k.cu_count);
    if (t.version >= kCollectiveKernelVersion) w.u8(k.collective ? 1 : 0);
    if (t.version >= kKernelFootprintVersion) {
      w.u32(k.footprint.waves);
      w.u32(k.footprint.registers);
      w.u64(k.footprint.lds_bytes);
    }
    if (k.args.size() > 0xff) throw std::length_error("a kernel with more than 255 arguments");
    w.u8(static_cast<std::uint8_t>(k.args.size()));
    for (const Expr& e : k.args) w.expr(e);
  }
  // One list per rank: the reader knows the count from `ranks`.
  for (std::uint32_t r = 0; r < t.ranks; ++r) {
    const std::vector<HostCommand> none;
    const std::vector<HostCommand>& cmds = r < t.host.size() ? t.host[r] : none;
    w.u32(w.count(cmds.size()));
    for (const HostCommand& c : cmds) {
      w.u8(static_cast<std::uint8_t>(c.op));
      w.u32(c.kernel);
      // Only a delay has the field, so traces without one are written as before version 5.
      if (c.op == HostOp::kDelay) w.u64(c.delay_ps);
    }
  }
}

Trace read_trace_binary(std::istream& in, const std::string& file_name) {
  std::string data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw TraceError::in_file(file_name, "read error");
  ByteReader r(std::move(data), file_name);
  if (!r.skip_magic(kBinaryMagic)) r.fail(0, "not a binary trace (the magic bytes \"TSRTRACE\" are missing)");
  Trace t;
  const std::size_t version_at = r.offset();
  t.version = r.u32("format version");
  if (t.version < kOldestTraceVersion || t.version > kTraceVersion) {
    r.fail(version_at, fmt::format("format version {} (this Tessera reads versions {} to {})", t.version,
                                   kOldestTraceVersion, kTraceVersion));
  }
  const std::size_t ranks_at = r.offset();
  t.ranks = r.u32("ranks");
  if (t.ranks == 0) r.fail(ranks_at, "ranks must be at least 1");
  // Each rank's host list ends the file: at least its count per rank must fit.
  if (static_cast<std::uint64_t>(t.ranks) * kHostListBytes > r.left()) {
    r.fail(ranks_at, fmt::format("ranks {}: their host lists cannot fit in the {} bytes left (truncated or corrupt)", t.ranks, r.left()));
  }
  // Buffers and programs are named in the text form, so their names must be unique (as its
  // reader requires); kernels are launched by index and may share names.
  std::unordered_set<std::string> names;
  const auto unique_name = [&r, &names](std::string_view what) {
    const std::size_t at = r.offset();
    std::string name = r.str("name");
    if (!names.insert(name).second) r.fail_field(at, "name", fmt::format("{} '{}' is defined twice (corrupt)", what, name));
    return name;
  };
  t.buffers.resize(r.count("buffer count", kMinBufferBytes));
  for (std::size_t i = 0; i < t.buffers.size(); ++i) {
    r.at({"buffer", i});
    t.buffers[i].name = unique_name("buffer");
    t.buffers[i].bytes = r.u64("size");
    if (t.version >= kBufferCoherenceVersion) {
      const std::size_t coherence_at = r.offset();
      const std::uint8_t coherence = r.u8("coherence");
      if (coherence > 1) r.fail_field(coherence_at, "coherence", fmt::format("{} (0 coarse or 1 fine)", coherence));
      t.buffers[i].coherence = static_cast<Coherence>(coherence);
    }
  }
  r.at({});
  names.clear();
  t.programs.resize(r.count("program count", kMinProgramBytes));
  for (std::size_t i = 0; i < t.programs.size(); ++i) {
    Program& p = t.programs[i];
    r.at({"program", i});
    p.name = unique_name("program");
    const std::uint32_t n = r.count("instruction count", kMinInstrBytes);
    p.instrs.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
      r.at({"program", i, "instruction", k});
      p.instrs.push_back(read_instr(r));
    }
  }
  r.at({});
  t.kernels.resize(r.count("kernel count", kMinKernelBytes));
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    Kernel& k = t.kernels[i];
    r.at({"kernel", i});
    k.name = r.str("name");
    k.rank = r.u32("rank");
    const std::size_t stream_at = r.offset();
    k.stream = r.u32("stream");
    if (k.stream >= kMaxStreams) r.fail_field(stream_at, "stream", fmt::format("{} (0..{}; corrupt)", k.stream, kMaxStreams - 1));
    k.grid = r.u64("grid");
    k.program = r.u32("program");
    k.cu_first = r.u32("cu_first");
    k.cu_count = r.u32("cu_count");
    if (t.version >= kCollectiveKernelVersion) {
      const std::size_t flag_at = r.offset();
      const std::uint8_t collective = r.u8("collective");
      if (collective > 1) r.fail_field(flag_at, "collective", fmt::format("{} (0 or 1)", collective));
      k.collective = collective == 1;
    }
    if (t.version >= kKernelFootprintVersion) {
      k.footprint.waves = r.u32("waves");
      k.footprint.registers = r.u32("registers");
      k.footprint.lds_bytes = r.u64("lds_bytes");
    }
    const std::size_t args_at = r.offset();
    const std::uint8_t args = r.u8("argument count");
    if (static_cast<std::size_t>(args) * kMinExprBytes > r.left()) {
      r.fail_field(args_at, "argument count", fmt::format("{} cannot fit in the {} bytes left (truncated or corrupt)", args, r.left()));
    }
    for (std::size_t a = 0; a < args; ++a) {
      r.at({"kernel", i, "argument", a});
      k.args.push_back(r.expr("expression"));
    }
  }
  t.host.resize(t.ranks);
  for (std::uint32_t rank = 0; rank < t.ranks; ++rank) {
    r.at({"rank", rank});
    const std::uint32_t n = r.count("host command count", kHostCommandBytes);
    t.host[rank].reserve(n);
    for (std::uint32_t c = 0; c < n; ++c) {
      r.at({"rank", rank, "host command", c});
      HostCommand cmd;
      const std::size_t op_at = r.offset();
      cmd.op = r.enumerated("op", HostOp::kDelay);
      if (cmd.op == HostOp::kDelay && t.version < kHostDelayVersion) {
        r.fail_field(op_at, "op", fmt::format("{} (delay) needs format version {} (the file is version {}; corrupt)",
                                              static_cast<int>(HostOp::kDelay), kHostDelayVersion, t.version));
      }
      cmd.kernel = r.u32("kernel");
      if (cmd.op == HostOp::kDelay) {
        const std::size_t delay_at = r.offset();
        cmd.delay_ps = r.u64("delay_ps");
        if (cmd.delay_ps > kMaxHostDelayPs) {
          r.fail_field(delay_at, "delay_ps", fmt::format("{} is too large (at most {}; corrupt)", cmd.delay_ps, kMaxHostDelayPs));
        }
      }
      t.host[rank].push_back(cmd);
    }
  }
  if (r.left() != 0) r.fail(r.offset(), fmt::format("{} trailing bytes after the trace (corrupt)", r.left()));
  if (const auto problem = validate(t)) throw TraceError::in_file(file_name, *problem);
  return t;
}

}  // namespace tessera::workloads::trace
