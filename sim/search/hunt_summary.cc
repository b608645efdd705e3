// The hunt summary file (hunt_summary.h): a hunt's targets, findings and probes as JSON, written
// atomically and read back with every field checked.
#include "sim/search/hunt_summary.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/assert.h"
#include "sim/run/verdict.h"

namespace wsim::run {

namespace {

using Json = nlohmann::json;  // Keys sorted; ordered_json needs 3.9 (OSS-Fuzz builder: 3.7).

constexpr const char* kFormat = "wsim-hunt-summary";
constexpr int kVersion = 1;

std::string label_of(const Finding& finding) {
  if (!finding.labelled) return "-";
  return finding.known.empty() ? "NEW" : "known";
}

Json finding_to_json(const Finding& finding, const std::vector<std::string>& signatures) {
  // Paired with realism_from_json's check: a realism written reads back.
  if (finding.realism) {
    WSIM_ASSERT_EQ(finding.realism->realistic, finding.realism->amplifiers.empty());
  }
  Json out;
  out["verdict"] = verdict_name(finding.verdict);
  out["exit_code"] = exit_code(finding.verdict);
  out["invariant"] = finding.invariant;
  out["label"] = label_of(finding);
  out["known"] = finding.known;
  out["first_seed"] = finding.seed;
  if (finding.swarm_seed) out["swarm_seed"] = *finding.swarm_seed;
  out["runs"] = finding.count;
  out["signature"] = finding.signature;
  out["signatures"] = signatures;
  out["object"] = finding.object;
  out["message"] = finding.message;
  out["bundle"] = finding.bundle;
  // issue #30: as verdict.json's "realism"; absent when not checked.
  out["production_runs"] = finding.production_runs;
  if (!finding.amplifier_flags.empty()) out["amplifier_flags"] = finding.amplifier_flags;
  if (finding.production_seed) out["production_seed"] = *finding.production_seed;
  if (!finding.failed_without.empty()) out["failed_without"] = finding.failed_without;
  if (finding.realism) {
    out["realism"] = Json{{"label", realism_label(*finding.realism)},
                          {"amplifiers", finding.realism->amplifiers},
                          {"why", finding.realism->why}};
  }
  return out;
}

Json target_to_json(const HuntTarget& target) {
  const HuntResult& result = target.result;
  Json out;
  out["system"] = target.system;
  out["versions"] = target.versions;
  out["repro"] = target.repro;
  out["runs"] = result.runs;
  out["failing_runs"] = result.failures;
  out["complete_below"] = result.complete_below;
  out["seconds"] = result.seconds;
  out["deadline_reached"] = result.deadline_reached;
  out["interrupted"] = result.interrupted;
  out["unmasked"] = result.unmasked;
  out["findings"] = Json::array();
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    const Finding& finding = result.findings[i];
    std::vector<std::string> signatures;
    if (i < target.signatures.size()) signatures = target.signatures[i];
    if (signatures.empty() && !finding.signature.empty()) signatures.push_back(finding.signature);
    out["findings"].push_back(finding_to_json(finding, signatures));
  }
  WSIM_ASSERT_EQ(out["findings"].size(), result.findings.size());
  out["probes"] = Json::array();
  for (const Probe& probe : result.probes) {
    out["probes"].push_back(
        {{"name", probe.name}, {"hits", probe.hits}, {"description", probe.description}});
  }
  return out;
}

// Reading: every field is checked; errors say "FILE: targets[0].findings[2].runs: ...".
class Reader {
 public:
  Reader(const std::string& file, std::string& error) : file_(file), error_(error) {}

  bool fail(const std::string& where, const std::string& what) {
    WSIM_ASSERT(!where.empty());  // Errors name the field.
    error_ = file_ + ": " + where + ": " + what;
    return false;
  }
  template <typename T>
  bool get(const Json& object, const std::string& where, const char* key, T& value) {
    const std::string path = where.empty() ? key : where + "." + key;
    if (!object.is_object() || !object.contains(key)) return fail(path, "missing");
    try {
      value = object.at(key).get<T>();
    } catch (const nlohmann::json::exception& e) {
      return fail(path, std::string("wrong type (") + e.what() + ")");
    }
    return true;
  }
  template <typename T>
  bool get_optional(const Json& object, const std::string& where, const char* key,
                    std::optional<T>& value) {
    if (object.is_object() && object.contains(key) && object.at(key).is_null()) {
      value.reset();
      return true;
    }
    T raw{};
    if (!get(object, where, key, raw)) return false;
    value = raw;
    return true;
  }

 private:
  std::string file_;
  std::string& error_;
};

// The optional members of issue #30 (older summaries have none of them).
bool realism_from_json(const Json& in, const std::string& where, Reader& reader, Finding& finding) {
  if (in.contains("production_runs") &&
      !reader.get(in, where, "production_runs", finding.production_runs)) {
    return false;
  }
  if (in.contains("amplifier_flags") &&
      !reader.get(in, where, "amplifier_flags", finding.amplifier_flags)) {
    return false;
  }
  if (in.contains("production_seed")) {
    std::uint64_t seed = 0;
    if (!reader.get(in, where, "production_seed", seed)) return false;
    finding.production_seed = seed;
  }
  if (in.contains("failed_without") &&
      !reader.get(in, where, "failed_without", finding.failed_without)) {
    return false;
  }
  if (!in.contains("realism")) return true;
  const Json& realism = in["realism"];
  const std::string at = where + ".realism";
  std::string label;
  Realism out;
  if (!reader.get(realism, at, "label", label) ||
      !reader.get(realism, at, "amplifiers", out.amplifiers) ||
      !reader.get(realism, at, "why", out.why)) {
    return false;
  }
  if (label != "realistic" && label != "needs") {
    return reader.fail(at + ".label", "expected realistic or needs, got '" + label + "'");
  }
  out.realistic = label == "realistic";
  if (out.realistic != out.amplifiers.empty()) {
    return reader.fail(at + ".amplifiers", "must be empty exactly when the label is realistic");
  }
  finding.realism = std::move(out);
  return true;
}

bool finding_from_json(const Json& in, const std::string& where, Reader& reader, Finding& finding,
                       std::vector<std::string>& signatures) {
  std::string verdict;
  std::string label;
  if (!reader.get(in, where, "verdict", verdict)) return false;
  if (!parse_verdict_name(verdict, finding.verdict)) {
    return reader.fail(where + ".verdict", "unknown verdict '" + verdict + "'");
  }
  if (!reader.get(in, where, "invariant", finding.invariant)) return false;
  if (!reader.get(in, where, "label", label)) return false;
  if (label != "-" && label != "NEW" && label != "known") {
    return reader.fail(where + ".label", "expected NEW, known or -, got '" + label + "'");
  }
  finding.labelled = label != "-";
  if (!reader.get(in, where, "known", finding.known)) return false;
  if ((label == "known") != !finding.known.empty()) {
    return reader.fail(where + ".known", "must be set exactly when label is known");
  }
  if (in.contains("swarm_seed")) {
    std::uint64_t swarm_seed = 0;
    if (!reader.get(in, where, "swarm_seed", swarm_seed)) return false;
    finding.swarm_seed = swarm_seed;
  }
  if (!realism_from_json(in, where, reader, finding)) return false;
  if (!(reader.get(in, where, "first_seed", finding.seed) &&
        reader.get(in, where, "runs", finding.count) &&
        reader.get(in, where, "signature", finding.signature) &&
        reader.get(in, where, "signatures", signatures) &&
        reader.get(in, where, "object", finding.object) &&
        reader.get(in, where, "message", finding.message) &&
        reader.get(in, where, "bundle", finding.bundle))) {
    return false;
  }
  // first_seed is the smallest failing seed of the row, production runs included.
  if (finding.production_seed && *finding.production_seed < finding.seed) {
    return reader.fail(where + ".production_seed", "must not be below first_seed");
  }
  for (const auto& [name, seed] : finding.failed_without) {
    if (seed < finding.seed) {
      return reader.fail(where + ".failed_without." + name, "must not be below first_seed");
    }
  }
  return true;
}

bool probes_from_json(const Json& in, const std::string& where, Reader& reader,
                      std::vector<Probe>& probes) {
  if (!in.is_array()) return reader.fail(where, "expected an array");
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    Probe probe;
    if (!reader.get(in[i], at, "name", probe.name) || !reader.get(in[i], at, "hits", probe.hits) ||
        !reader.get(in[i], at, "description", probe.description)) {
      return false;
    }
    probes.push_back(std::move(probe));
  }
  WSIM_ASSERT_GE(probes.size(), in.size());
  return true;
}

bool target_from_json(const Json& in, const std::string& where, Reader& reader,
                      HuntTarget& target) {
  HuntResult& result = target.result;
  Json findings;
  Json probes;
  if (!reader.get(in, where, "system", target.system) ||
      !reader.get(in, where, "versions", target.versions) ||
      !reader.get(in, where, "repro", target.repro) ||
      !reader.get(in, where, "runs", result.runs) ||
      !reader.get(in, where, "failing_runs", result.failures) ||
      !reader.get(in, where, "complete_below", result.complete_below) ||
      !reader.get(in, where, "seconds", result.seconds) ||
      !reader.get(in, where, "deadline_reached", result.deadline_reached) ||
      !reader.get(in, where, "interrupted", result.interrupted) ||
      !reader.get(in, where, "unmasked", result.unmasked) ||
      !reader.get(in, where, "findings", findings) || !reader.get(in, where, "probes", probes)) {
    return false;
  }
  if (!findings.is_array()) return reader.fail(where + ".findings", "expected an array");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    Finding finding;
    std::vector<std::string> signatures;
    const std::string at = where + ".findings[" + std::to_string(i) + "]";
    if (!finding_from_json(findings[i], at, reader, finding, signatures)) return false;
    result.findings.push_back(std::move(finding));
    target.signatures.push_back(std::move(signatures));
  }
  // The signature lists stay alongside the findings (hunt_merge.cc relies on it).
  WSIM_ASSERT_EQ(target.signatures.size(), result.findings.size());
  return probes_from_json(probes, where + ".probes", reader, result.probes);
}

bool header_from_json(const Json& in, Reader& reader, HuntSummary& summary) {
  std::string format;
  int version = 0;
  Json shard;
  if (!reader.get(in, "", "format", format)) return false;
  if (format != kFormat) return reader.fail("format", "expected " + std::string(kFormat));
  if (!reader.get(in, "", "version", version)) return false;
  if (version != kVersion) return reader.fail("version", "unsupported " + std::to_string(version));
  if (!reader.get(in, "", "shard", shard) ||
      !reader.get(shard, "shard", "index", summary.shard.index) ||
      !reader.get(shard, "shard", "count", summary.shard.count)) {
    return false;
  }
  if (summary.shard.count == 0 || summary.shard.index >= summary.shard.count) {
    return reader.fail("shard", "expected 0 <= index < count");
  }
  return reader.get(in, "", "merged_shards", summary.merged_shards) &&
         reader.get(in, "", "seed_start", summary.seed_start) &&
         reader.get_optional(in, "", "runs_budget", summary.runs_budget) &&
         reader.get_optional(in, "", "time_budget_ms", summary.time_budget_ms);
}

}  // namespace

int HuntSummary::exit_code() const {
  for (const HuntTarget& target : targets) {
    const int code = target.result.exit_code();
    if (code != kExitPass) return code;
  }
  return kExitPass;
}

std::string summary_to_json(const HuntSummary& summary) {
  // Paired with header_from_json: 0 <= index < count.
  WSIM_ASSERT_LT(summary.shard.index, summary.shard.count);
  Json out;
  out["format"] = kFormat;
  out["version"] = kVersion;
  out["shard"] = {{"index", summary.shard.index}, {"count", summary.shard.count}};
  out["merged_shards"] = summary.merged_shards;
  out["seed_start"] = summary.seed_start;
  out["runs_budget"] = summary.runs_budget ? Json(*summary.runs_budget) : Json(nullptr);
  out["time_budget_ms"] = summary.time_budget_ms ? Json(*summary.time_budget_ms) : Json(nullptr);
  out["exit_code"] = summary.exit_code();
  out["targets"] = Json::array();
  for (const HuntTarget& target : summary.targets) out["targets"].push_back(target_to_json(target));
  return out.dump(2) + "\n";
}

bool summary_from_json(const std::string& text, const std::string& file, HuntSummary& summary,
                       std::string& error) {
  Json in;
  try {
    in = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    error = file + ": not JSON: " + e.what();
    return false;
  }
  Reader reader(file, error);
  summary = HuntSummary{};
  if (!header_from_json(in, reader, summary)) return false;
  Json targets;
  if (!reader.get(in, "", "targets", targets)) return false;
  if (!targets.is_array()) return reader.fail("targets", "expected an array");
  for (std::size_t i = 0; i < targets.size(); ++i) {
    HuntTarget target;
    if (!target_from_json(targets[i], "targets[" + std::to_string(i) + "]", reader, target)) {
      return false;
    }
    summary.targets.push_back(std::move(target));
  }
  WSIM_ASSERT_EQ(summary.targets.size(), targets.size());
  return true;
}

bool write_summary_file(const std::string& path, const HuntSummary& summary, std::string& error) {
  WSIM_ASSERT(!path.empty());
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << summary_to_json(summary);
    if (!out.flush()) {
      error = path + ": cannot write";
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    error = path + ": cannot write: " + ec.message();
    return false;
  }
  return true;
}

bool read_summary_file(const std::string& path, HuntSummary& summary, std::string& error) {
  WSIM_ASSERT(!path.empty());  // Errors name the file.
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot read";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return summary_from_json(text.str(), path, summary, error);
}

}  // namespace wsim::run
