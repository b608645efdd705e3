// `wsim explain BUNDLE` (commands.h): replays the bundle (or its shrunk run), labels the finding
// against the corpus and prints the story; --html also writes the timeline page.
#include <filesystem>
#include <fstream>

#include "cli/commands/commands.h"
#include "sim/report/explain.h"
#include "sim/report/timeline_html.h"
#include "sim/run/amplifiers.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/run/verdict_json.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace fs = std::filesystem;

namespace {

// issue #30 item 3: the realism verdict.json of the bundle `dir` recorded, if any.
std::optional<Realism> recorded_realism(const std::string& dir) {
  std::string json;
  std::string error;
  proto::VerdictRecord record;
  if (!read_file_capped(dir + "/verdict.json", kVerdictBytesMax, json, error) ||
      !parse_verdict_json(json, dir + "/verdict.json", record, error) || !record.has_realism()) {
    return std::nullopt;
  }
  Realism realism;
  realism.realistic = record.realism().label() == "realistic";
  realism.amplifiers.assign(record.realism().amplifiers().begin(),
                            record.realism().amplifiers().end());
  realism.why = record.realism().why();
  return realism;
}

// The realism line of a failing run: as recorded in the bundle, else checked now (realism.h:
// the same verdict and invariant with the amplifiers at production, at most a few re-runs).
std::string realism_line(const std::string& dir, const System& system,
                         const proto::Scenario& scenario, const RunResult& result) {
  if (result.verdict != Verdict::kSafety && result.verdict != Verdict::kLiveness) return "";
  std::optional<Realism> realism = recorded_realism(dir);
  if (!realism) {
    const std::string invariant = result.violation ? result.violation->invariant_id : "";
    realism = check_realism(scenario, system, [&](const proto::Scenario& candidate) {
      const RunResult again = execute_run(system, candidate, RunOptions{});
      return again.verdict == result.verdict && again.violation &&
             again.violation->invariant_id == invariant;
    });
  }
  return "realism: " + realism_text(*realism) + "\n";
}

}  // namespace

int cmd_explain(const ExplainCommand& command, std::ostream& out, std::ostream& err) {
  std::string dir = command.bundle;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  Bundle bundle;
  std::string error;
  std::string note;
  std::error_code ec;
  bool loaded = false;
  if (!command.original && fs::is_directory(dir + "-shrunk", ec)) {
    if (read_bundle(dir + "-shrunk", bundle, error) && validate_scenario(bundle.scenario, error)) {
      loaded = true;
      note = dir + "-shrunk (the shrunk run; --original for the bundle itself)";
    } else {
      note = dir + " (its shrunk run " + dir + "-shrunk could not be read: " + error + ")";
    }
  }
  if (!loaded) {
    if (!read_bundle(dir, bundle, error) || !validate_scenario(bundle.scenario, error)) {
      err << "wsim explain: " << error << "\n";
      return kExitUsage;
    }
    if (note.empty()) note = dir;
  }
  const System& system = *bundle.scenario.system;
  const std::vector<std::uint64_t> tape = tape_of(bundle.record);
  RunOptions options;
  options.tape = tape;
  options.keep_trace = true;
  RunResult result = execute_run(system, bundle.scenario.scenario, options);
  if (!label_with_corpus(system, bundle.scenario.scenario, command.known_dir, result, error)) {
    err << "wsim explain: cannot label the finding: " << error << "\n";
  }
  if (bundle.has_hashes && result.trace_hash != bundle.trace_hash) {
    note += "\n       note: the replay differs from the recorded run (trace hash " +
            format_hash(result.trace_hash) + ", recorded " + format_hash(bundle.trace_hash) +
            "): the code changed since the bundle was written";
  }
  out << explain_run(system, bundle.scenario.scenario, tape, result, note);
  if (result.signature) {
    out << "signature: " << result.signature->text() << "\n";
    if (result.labelled) out << (result.known.empty() ? "NEW" : "known: " + result.known) << "\n";
  }
  out << realism_line(dir, system, bundle.scenario.scenario, result);
  if (!command.html.empty()) {
    std::ofstream file(command.html, std::ios::binary | std::ios::trunc);
    file << render_timeline_html(system, bundle.scenario.scenario, result);
    file.close();
    if (!file) {
      err << "wsim explain: " << command.html << ": cannot write\n";
      return kExitUsage;
    }
    out << "diagram: " << command.html << "\n";
  }
  if (command.verbose) out << "\n" << render_trace_verbose(result);
  return 0;
}

}  // namespace wsim::run
