#include "sim/app/calibration/calibrated_system_yaml.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/measured/measured_set.h"
#include "sim/app/run/version.h"
#include "sim/config/units.h"
#include "sim/config/yaml_writer.h"
#include "sim/app/report/report_format.h"

namespace tessera::app::calibration {
namespace {

constexpr std::size_t kCommentWidth = 110;

// Comment lines of at most kCommentWidth columns, broken at spaces; leading spaces of `text`
// indent every line of it, and continuation lines by two more.
void append_comment(std::string& out, int indent, const std::string& text) {
  const std::string prefix = std::string(static_cast<std::size_t>(indent), ' ') + "# ";
  const std::size_t lead = std::min(text.find_first_not_of(' '), text.size());
  const std::string first_indent(lead, ' ');
  std::string line = first_indent;
  bool has_word = false;
  std::size_t start = lead;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (has_word && prefix.size() + line.size() + 1 + word.size() > kCommentWidth) {
      out += prefix + line + "\n";
      line = first_indent + "  " + word;
    } else {
      line += (has_word ? " " : "") + word;
    }
    has_word = true;
  }
  if (has_word) out += prefix + line + "\n";
}

// The fitted keys as a tree of maps, in the order the fits wrote them.
struct YamlNode {
  std::string key;
  std::vector<std::string> comments;
  std::optional<std::string> value;
  std::vector<YamlNode> children;
  std::vector<std::string> block;  // a list value, already written as YAML lines (relative indent)
};

YamlNode& child(YamlNode& node, const std::string& key) {
  for (YamlNode& c : node.children) {
    if (c.key == key) return c;
  }
  node.children.push_back(YamlNode{key, {}, std::nullopt, {}, {}});
  return node.children.back();
}

void insert(YamlNode& root, const std::string& path, std::vector<std::string> comments, std::string value) {
  YamlNode* node = &root;
  std::size_t start = 0;
  for (std::size_t dot = path.find('.'); ; dot = path.find('.', start)) {
    node = &child(*node, path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  node->comments = std::move(comments);
  node->value = std::move(value);
}

void emit(std::string& out, const YamlNode& node, int indent) {
  for (const std::string& c : node.comments) append_comment(out, indent, c);
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (node.value) {
    out += fmt::format("{}{}: {}\n", pad, node.key, sim::config::yaml_scalar(*node.value));
    return;
  }
  if (!node.block.empty()) {
    out += fmt::format("{}{}:\n", pad, node.key);
    for (const std::string& line : node.block) out += fmt::format("{}  {}\n", pad, line);
    return;
  }
  out += fmt::format("{}{}:\n", pad, node.key);
  for (const YamlNode& c : node.children) emit(out, c, indent + 2);
}

std::string value_with_unit(const CalibrationKey& key, double value) { return value_text(key, value); }

// The comments above one fitted key.
std::vector<std::string> key_comments(const FitOutcome& fit, const FittedValue& v, bool first_of_fit, const std::string& first_key) {
  std::vector<std::string> lines;
  if (first_of_fit) {
    lines.push_back(fmt::format("fit '{}': {}", fit.fit, fit.model));
    if (fit.direct.points > fit.files.size()) {
      // Files of several points each (a collective library's kernel times).
      lines.push_back(fmt::format("{} point(s) from {} file(s): {}", fit.direct.points, fit.files.size(), fmt::join(fit.files, ", ")));
    } else {
      lines.push_back(fmt::format("{} point(s) from: {}", fit.files.size(), fmt::join(fit.files, ", ")));
    }
    if (fit.direct.points < fit.files.size()) {
      lines.push_back(fmt::format("the direct fit used the {} that run a workgroup on every CU; the refinement all", fit.direct.points));
    }
    for (const std::string& n : fit.notes) lines.push_back(n);
  } else {
    lines.push_back(fmt::format("fit '{}': the same {} point(s) as {}", fit.fit, std::max(fit.files.size(), fit.direct.points), first_key));
  }
  std::string residuals = fmt::format("residual of the direct fit: RMS {}", residual_text(fit.direct, fit.unit));
  if (fit.tessera) {
    residuals += fmt::format("; of Tessera with this file: RMS {}, MAPE {:.2f}%", residual_text(*fit.tessera, fit.unit),
                             100 * fit.tessera->mape);
  }
  lines.push_back(fmt::format("value {} (direct fit {}); {}", value_with_unit(*v.key, v.value), value_with_unit(*v.key, v.direct),
                              residuals));
  if (!v.note.empty()) lines.push_back(v.note);
  return lines;
}

}  // namespace

std::string residual_text(const Residual& residual, const std::string& unit) {
  const std::string rms = unit == "ns" ? report::format_duration_ns(residual.rms) : fmt::format("{:.3f} {}", residual.rms, unit);
  return fmt::format("{} ({:.2f}%)", rms, 100 * residual.relative_rms);
}

std::string calibrated_system_yaml(const CalibrationResult& r, const CalibratedFileNames& names) {
  std::string out;
  append_comment(out, 0, fmt::format("{}: {} with the parameters that specifications do not give fitted to microbenchmark results "
                                     "of the HIP kernel suite by `tessera calibrate` (tessera {}).",
                                     names.name, r.base.name, run::kVersion));
  append_comment(out, 0, "Pattern results are never fitted: they are the validation data of `tessera validate`. The models and "
                         "the method: docs/validation.md, section \"Calibration\".");
  append_comment(out, 0, fmt::format("command: {}", names.command));
  append_comment(out, 0, fmt::format("results: {} used; {}; {} pattern result(s) left for validation; {} other microbenchmark "
                                     "result(s) unused", r.used_results(), measured::describe_skipped(r.skipped),
                                     r.pattern_results, r.unused.size()));
  for (const UnusedResult& u : r.unused) append_comment(out, 0, fmt::format("  unused: {}: {}", u.display_name, u.reason));
  append_comment(out, 0, fmt::format("devices: {}", r.devices.empty() ? "(none named)" : fmt::format("{}", fmt::join(r.devices, ", "))));
  append_comment(out, 0, fmt::format("data digest: FNV-1a {} of the used result files, in path order", r.data_digest));
  append_comment(out, 0, "measured statistic: timing.mean_ns, the mean of the per-iteration device-event times (latencies: "
                         "per operation)");
  std::vector<std::string> not_fitted;
  for (const FitOutcome& f : r.fits) {
    for (const NotFitted& n : f.not_fitted) not_fitted.push_back(fmt::format("{} ({})", n.key, n.reason));
  }
  if (not_fitted.empty()) {
    append_comment(out, 0, "not fitted: none");
  } else {
    append_comment(out, 0, "not fitted (no usable data; the base value stays):");
    for (const std::string& n : not_fitted) append_comment(out, 0, "  " + n);
  }
  out += fmt::format("base: {}\n", sim::config::yaml_scalar(names.base));
  out += fmt::format("name: {}\n", sim::config::yaml_scalar(names.name));
  out += fmt::format("description: {}\n",
                     sim::config::yaml_scalar(fmt::format("{}, calibrated from microbenchmarks (tessera calibrate)", r.base.description)));
  YamlNode root;
  for (const FitOutcome& f : r.fits) {
    for (std::size_t i = 0; i < f.values.size(); ++i) {
      const FittedValue& v = f.values[i];
      insert(root, std::string(v.key->path), key_comments(f, v, i == 0, std::string(f.values[0].key->path)),
             value_with_unit(*v.key, v.value));
    }
  }
  // gpu.compute.kernel_efficiency: one list of every fit's entries, each with its comments.
  std::vector<std::string> block;
  for (const FitOutcome& f : r.fits) {
    for (const FittedKernelEfficiency& k : f.kernel_efficiency) {
      std::string comments;
      for (const std::string& line : k.comments) append_comment(comments, 0, line);
      if (!f.notes.empty() && &k == &f.kernel_efficiency.front()) {
        for (const std::string& n : f.notes) append_comment(comments, 0, n);
      }
      for (std::size_t start = 0; start < comments.size();) {
        const std::size_t end = comments.find('\n', start);
        block.push_back(comments.substr(start, end - start));
        start = end + 1;
      }
      std::vector<std::string> values;
      for (double e : k.entry.efficiency) values.push_back(sim::config::format_real(e));
      block.push_back(fmt::format("- kernel: {}", sim::config::yaml_scalar(k.entry.kernel)));
      block.push_back(fmt::format("  dtype: {}", k.entry.dtype));
      block.push_back(fmt::format("  efficiency: [{}]", fmt::join(values, ", ")));
    }
  }
  if (!block.empty()) {
    YamlNode* node = &child(child(root, "gpu"), "compute");
    child(*node, "kernel_efficiency").block = std::move(block);
  }
  for (const YamlNode& c : root.children) emit(out, c, 0);
  return out;
}

}  // namespace tessera::app::calibration
