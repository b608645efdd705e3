// Failure bundles (bundle.h): their directory names and reading one back (scenario, choice
// record, verdict and hashes).
#include "sim/run/bundle.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/core/assert.h"
#include "sim/run/atomic_write.h"
#include "sim/run/duration.h"
#include "sim/run/verdict_json.h"

namespace wsim::run {

namespace fs = std::filesystem;

namespace {

std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  WSIM_ASSERT_EQ(out.find('/'), std::string::npos);  // One path segment, never a path.
  return out.substr(0, 120);
}

}  // namespace

std::string bundle_name(const System& system, const proto::Scenario& scenario,
                        const RunResult& result) {
  WSIM_ASSERT(!system.name().empty());
  std::string name = system.name();
  const std::string versions = version_tag(scenario, system);
  if (!versions.empty()) name += "-" + versions;
  name += "-s" + std::to_string(result.seed) + "-";
  name +=
      result.violation ? result.violation->invariant_id : std::string(verdict_name(result.verdict));
  return sanitize(name);
}

bool read_bundle(const std::string& dir, Bundle& bundle, std::string& error) {
  bundle = Bundle{};
  bundle.dir = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    error = dir + ": not a bundle directory";
    return false;
  }
  const fs::path root(dir);
  if (!load_scenario_file((root / "scenario.textproto").string(), bundle.scenario, error)) {
    return false;
  }
  std::string bytes;
  const std::string choices_path = (root / "choices.bin").string();
  if (!read_file_capped(choices_path, kChoicesBytesMax, bytes, error)) return false;
  std::string problem;
  if (!decode_choice_record(bytes, bundle.record, problem)) {
    error = choices_path + ": " + problem;
    return false;
  }
  std::string json;
  const std::string verdict_path = (root / "verdict.json").string();
  if (!read_file_capped(verdict_path, kVerdictBytesMax, json, error)) return false;
  proto::VerdictRecord record;
  if (!parse_verdict_json(json, verdict_path, record, error)) return false;
  if (!parse_hash(record.fingerprint(), bundle.fingerprint) ||
      !parse_hash(record.trace_hash(), bundle.trace_hash)) {
    error = verdict_path + ": field fingerprint/trace_hash: missing or not a 0x-prefixed " +
            "16-digit hash";
    return false;
  }
  bundle.has_hashes = true;
  // Paired with decode_choice_record: 16 bytes a choice, within the file cap.
  WSIM_ASSERT_LE(bundle.record.size(), kChoicesBytesMax / 16);
  bundle.verdict = record.verdict();
  bundle.invariant = record.invariant();
  return true;
}

}  // namespace wsim::run
