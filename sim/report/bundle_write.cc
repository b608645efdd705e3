// bundle_write.h: a bundle directory filled in <out>/.tmp-<name>, then renamed into place.
#include "sim/report/bundle_write.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/core/assert.h"
#include "sim/report/report.h"
#include "sim/report/timeline_html.h"
#include "sim/run/atomic_write.h"
#include "sim/run/duration.h"
#include "sim/run/shell_quote.h"
#include "sim/run/verdict_json.h"

namespace wsim::run {

namespace fs = std::filesystem;

namespace {

// scenario.textproto: a header naming the run and how to replay it, then the scenario.
std::string scenario_file_text(const proto::Scenario& scenario, const RunResult& result,
                               const fs::path& final_dir) {
  WSIM_ASSERT(final_dir.has_filename());  // The replay lines name the bundle directory.
  std::string scenario_text = "# wsim failure bundle: " + std::string(verdict_name(result.verdict));
  if (result.violation) scenario_text += " " + result.violation->invariant_id;
  scenario_text += ", seed " + std::to_string(result.seed) + "\n";
  if (scenario.has_external()) {
    // The external system's reconciler is a process: replays and runs take it after `--`.
    std::string process = " --";
    for (const std::string& arg : scenario.external().command()) process += " " + shell_quote(arg);
    if (scenario.external().command().empty()) process += " COMMAND";
    scenario_text += "# replay exactly (choices.bin): scripts/wsim replay " + final_dir.string() +
                     process + "\n# run from the seed:            scripts/wsim serve --scenario " +
                     (final_dir / "scenario.textproto").string() + process +
                     "\n# the recorded run's story:     scripts/wsim explain " +
                     final_dir.string() + "\n";
  } else {
    scenario_text += "# replay exactly (choices.bin): scripts/wsim replay " + final_dir.string() +
                     "\n# run from the seed:            scripts/wsim run --scenario " +
                     (final_dir / "scenario.textproto").string() + "\n";
  }
  scenario_text += scenario_to_text(scenario);
  return scenario_text;
}

}  // namespace

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
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT_EQ(name.find('/'), std::string::npos);  // Paired with bundle_name: one segment.
  const fs::path final_dir = out / name;
  const fs::path tmp_dir = out / (".tmp-" + name);
  const fs::path old_dir = out / (".old-" + name);
  fs::remove_all(tmp_dir, ec);  // A stale one from an interrupted write.
  if (!fs::create_directory(tmp_dir, ec) || ec) {
    error = tmp_dir.string() + ": cannot create: " + (ec ? ec.message() : "exists");
    return false;
  }

  const std::string scenario_text = scenario_file_text(scenario, result, final_dir);

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
  // The bundle has every file it lists, each whole (read_bundle reads three of them back).
  for (const auto& [file, bytes] : files) {
    WSIM_ASSERT_EQ(fs::file_size(tmp_dir / file, ec), bytes.size());
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

}  // namespace wsim::run
