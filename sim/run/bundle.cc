#include "sim/run/bundle.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/run/atomic_write.h"
#include "sim/run/duration.h"
#include "sim/run/report.h"
#include "sim/run/timeline_html.h"
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
  return out.substr(0, 120);
}

}  // namespace

std::string bundle_name(const System& system, const proto::Scenario& scenario,
                        const RunResult& result) {
  std::string name = system.name();
  const std::string versions = version_tag(scenario, system);
  if (!versions.empty()) name += "-" + versions;
  name += "-s" + std::to_string(result.seed) + "-";
  name +=
      result.violation ? result.violation->invariant_id : std::string(verdict_name(result.verdict));
  return sanitize(name);
}

bool write_bundle(const std::string& out_dir, const System& system, const proto::Scenario& scenario,
                  const RunResult& result, std::string& path, std::string& error) {
  std::error_code ec;
  const fs::path out(out_dir.empty() ? "." : out_dir);
  fs::create_directories(out, ec);
  if (ec) {
    error = out.string() + ": cannot create the output directory: " + ec.message();
    return false;
  }
  const std::string name = bundle_name(system, scenario, result);
  const fs::path final_dir = out / name;
  const fs::path tmp_dir = out / (".tmp-" + name);
  const fs::path old_dir = out / (".old-" + name);
  fs::remove_all(tmp_dir, ec);  // A stale one from an interrupted write.
  if (!fs::create_directory(tmp_dir, ec) || ec) {
    error = tmp_dir.string() + ": cannot create: " + (ec ? ec.message() : "exists");
    return false;
  }

  std::string scenario_text = "# wsim failure bundle: " + std::string(verdict_name(result.verdict));
  if (result.violation) scenario_text += " " + result.violation->invariant_id;
  scenario_text += ", seed " + std::to_string(result.seed) + "\n";
  scenario_text += "# replay exactly (choices.bin): scripts/wsim replay " + final_dir.string() +
                   "\n# run from the seed:            scripts/wsim run --scenario " +
                   (final_dir / "scenario.textproto").string() + "\n";
  scenario_text += scenario_to_text(scenario);

  const std::pair<const char*, std::string> files[] = {
      {"scenario.textproto", std::move(scenario_text)},
      {"choices.bin", encode_choice_record(result.record)},
      {"trace.jsonl", render_trace_jsonl(result)},
      {"trace.txt", render_trace_text(system, scenario, result)},
      {"verdict.json", verdict_json(verdict_record(system, scenario, result))},
      {"timeline.html", render_timeline_html(system, scenario, result)},
  };
  for (const auto& [file, bytes] : files) {
    // Each file is fsync'ed before the rename that publishes the directory exposes it.
    if (!atomic_write_file(tmp_dir / file, bytes, ExistingFile::kReplace, error)) {
      fs::remove_all(tmp_dir, ec);
      return false;
    }
  }
  sync_directory(tmp_dir);

  // Publish: move an existing bundle of the same name aside, rename, then drop the old one.
  fs::remove_all(old_dir, ec);
  const bool had_old = fs::exists(final_dir, ec);
  if (had_old && ::rename(final_dir.c_str(), old_dir.c_str()) != 0) {
    error = final_dir.string() + ": cannot replace the existing bundle: " + std::strerror(errno);
    fs::remove_all(tmp_dir, ec);
    return false;
  }
  if (::rename(tmp_dir.c_str(), final_dir.c_str()) != 0) {
    error = final_dir.string() + ": cannot publish the bundle: " + std::strerror(errno);
    if (had_old) ::rename(old_dir.c_str(), final_dir.c_str());
    fs::remove_all(tmp_dir, ec);
    return false;
  }
  sync_directory(out);
  if (had_old) fs::remove_all(old_dir, ec);
  path = final_dir.string();
  return true;
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
  bundle.verdict = record.verdict();
  bundle.invariant = record.invariant();
  return true;
}

}  // namespace wsim::run
