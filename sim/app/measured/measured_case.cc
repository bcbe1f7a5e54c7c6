#include "sim/app/measured/measured_case.h"

#include <fstream>
#include <sstream>
#include <string_view>

#include "sim/app/measured/measured_data_error.h"
#include "sim/io/strict_json.h"
#include "sim/io/whole_file.h"

namespace tessera::app::measured {
namespace {

// A result file of the kernel suite is a few KiB (its samples included); far beyond any.
constexpr std::uint64_t kMaxMeasuredFileBytes = std::uint64_t{64} << 20;

// Reads typed keys of one JSON object, naming the file and the dotted key path in every error.
class KeyReader {
 public:
  KeyReader(const nlohmann::json& object, std::string file, std::string prefix)
      : object_(object), file_(std::move(file)), prefix_(std::move(prefix)) {}

  const nlohmann::json& required(std::string_view key, nlohmann::json::value_t type, std::string_view what) const {
    const auto it = object_.find(key);
    if (it == object_.end()) throw MeasuredDataError(file_, path(key), "missing required key");
    check_type(*it, key, type, what);
    return *it;
  }
  const nlohmann::json* optional(std::string_view key, nlohmann::json::value_t type, std::string_view what) const {
    const auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return nullptr;
    check_type(*it, key, type, what);
    return &*it;
  }
  std::string string(std::string_view key) const {
    return required(key, nlohmann::json::value_t::string, "a string").get<std::string>();
  }
  double number(std::string_view key) const {
    return required(key, nlohmann::json::value_t::number_float, "a number").get<double>();
  }
  double positive_number(std::string_view key) const {
    const double v = number(key);
    if (!(v > 0)) throw MeasuredDataError(file_, path(key), fmt::format("expected a positive number, got {}", v));
    return v;
  }
  std::uint32_t count(std::string_view key) const {
    const nlohmann::json& v = required(key, nlohmann::json::value_t::number_unsigned, "a positive integer");
    const double d = v.get<double>();
    if (d < 1 || d > 1e6 || d != static_cast<double>(static_cast<std::uint32_t>(d))) {
      throw MeasuredDataError(file_, path(key), fmt::format("expected a positive integer, got {}", v.dump()));
    }
    return static_cast<std::uint32_t>(d);
  }
  KeyReader nested(std::string_view key) const {
    return KeyReader(required(key, nlohmann::json::value_t::object, "an object"), file_, path(key));
  }
  std::string path(std::string_view key) const { return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key); }

 private:
  // Numbers of any JSON number type are accepted where a number or a count is expected.
  void check_type(const nlohmann::json& v, std::string_view key, nlohmann::json::value_t type, std::string_view what) const {
    const bool numeric = type == nlohmann::json::value_t::number_float || type == nlohmann::json::value_t::number_unsigned;
    const bool ok = numeric ? v.is_number() : v.type() == type;
    if (!ok) throw MeasuredDataError(file_, path(key), fmt::format("expected {}, got {}", what, v.dump()));
  }

  const nlohmann::json& object_;
  std::string file_;
  std::string prefix_;
};

}  // namespace

ParsedFile parse_measured_case(const nlohmann::json& document, const std::filesystem::path& file,
                               const std::string& display_name) {
  ParsedFile parsed;
  if (!document.is_object()) throw MeasuredDataError(display_name, "", "expected a JSON object at the top level");
  const KeyReader top(document, display_name, "");
  // Other JSON documents (a validation.json written into the same folder) carry another
  // schema, or none: they are left alone; a newer version of the suite's own schema is an error.
  const nlohmann::json* schema = top.optional("schema", nlohmann::json::value_t::string, "a string");
  if (schema == nullptr) {
    throw MeasuredDataError(display_name, "schema",
                            fmt::format("missing required key (a kernel-suite result has schema \"{}\")", kResultSchema));
  }
  const std::string schema_name = schema->get<std::string>();
  if (schema_name == kLibraryKernelTimesSchema) {
    parsed.not_a_result_reason = fmt::format("schema \"{}\": a collective library's kernel times", schema_name);
    parsed.kernel_times = parse_library_kernel_times(document, display_name);
    return parsed;
  }
  if (schema_name == kKernelBoundariesSchema) {
    parsed.not_a_result_reason = fmt::format("schema \"{}\": kernel boundaries on the GPU", schema_name);
    parsed.kernel_boundaries = parse_kernel_boundaries(document, display_name);
    return parsed;
  }
  if (schema_name != kResultSchema) {
    if (schema_name.starts_with(kResultSchemaFamily)) {
      throw MeasuredDataError(display_name, "schema",
                              fmt::format("unsupported version \"{}\" (this Tessera reads \"{}\")", schema_name, kResultSchema));
    }
    parsed.not_a_result_reason = fmt::format("schema \"{}\" is not a kernel-suite result", schema_name);
    return parsed;
  }
  parsed.is_result = true;
  MeasuredCase& c = parsed.result;
  c.file = file;
  c.display_name = display_name;
  c.case_name = top.string("case");
  c.kind = top.string("kind");
  if (c.kind != "microbenchmark" && c.kind != "pattern") {
    throw MeasuredDataError(display_name, "kind", fmt::format("expected \"microbenchmark\" or \"pattern\", got \"{}\"", c.kind));
  }
  c.status = top.string("status");
  if (c.status != "passed" && c.status != "failed") {
    throw MeasuredDataError(display_name, "status", fmt::format("expected \"passed\" or \"failed\", got \"{}\"", c.status));
  }
  if (const auto* shared = top.optional("shared_gpu", nlohmann::json::value_t::boolean, "true or false")) {
    c.shared_gpu = shared->get<bool>();
  }
  if (!c.usable()) return parsed;  // skipped: nothing else needs to be there

  c.ranks = top.count("ranks");
  if (const auto* device = top.optional("device", nlohmann::json::value_t::string, "a string")) c.device = device->get<std::string>();
  c.params = top.required("params", nlohmann::json::value_t::object, "an object");
  const KeyReader timing = top.nested("timing");
  c.timing.mean_ns = timing.positive_number("mean_ns");
  c.timing.median_ns = timing.positive_number("median_ns");
  if (timing.optional("min_ns", nlohmann::json::value_t::number_float, "a number")) c.timing.min_ns = timing.number("min_ns");
  if (timing.optional("max_ns", nlohmann::json::value_t::number_float, "a number")) c.timing.max_ns = timing.number("max_ns");
  if (const auto* samples = timing.optional("samples_ns", nlohmann::json::value_t::array, "a list of numbers")) {
    c.timing.samples = samples->size();
  }
  const nlohmann::json* metrics = top.optional("metrics", nlohmann::json::value_t::object, "an object");
  c.metrics = metrics != nullptr ? *metrics : nlohmann::json::object();
  const KeyReader tessera = top.nested("tessera");
  c.tessera_workload = tessera.required("workload", nlohmann::json::value_t::object, "an object");
  const KeyReader workload = tessera.nested("workload");
  (void)workload.string("kind");  // every Tessera workload names its kind
  c.tessera_ranks = tessera.count("ranks");
  return parsed;
}

ParsedFile parse_measured_text(std::string_view text, const std::filesystem::path& file, const std::string& display_name) {
  nlohmann::json document;
  try {
    document = sim::io::parse_strict_json(text);
  } catch (const sim::io::StrictJsonError& e) {
    using Kind = sim::io::StrictJsonError::Kind;
    if (e.kind == Kind::kDuplicateKey) throw MeasuredDataError(display_name, e.key, "duplicate key");
    const std::string where = e.kind == Kind::kSyntax ? " at " + sim::io::line_and_column(text, e.byte) : "";
    throw MeasuredDataError(display_name, "", fmt::format("not valid JSON{}: {}", where, e.what()));
  }
  return parse_measured_case(document, file, display_name);
}

ParsedFile parse_measured_file(const std::filesystem::path& file, const std::string& display_name) {
  std::string text;
  try {
    text = sim::io::read_whole_file(file, kMaxMeasuredFileBytes);
  } catch (const sim::io::FileReadError& e) {
    throw MeasuredDataError(display_name, "", e.reason());
  }
  return parse_measured_text(text, file, display_name);
}

}  // namespace tessera::app::measured
