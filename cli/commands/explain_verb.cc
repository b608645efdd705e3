// `wsim explain BUNDLE` (commands.h): replays the bundle (or its shrunk run), labels the finding
// against the corpus and prints the story; --html also writes the timeline page.
#include <filesystem>
#include <fstream>

#include "cli/commands/commands.h"
#include "sim/report/explain.h"
#include "sim/report/timeline_html.h"
#include "sim/run/bundle.h"
#include "sim/run/duration.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {

namespace fs = std::filesystem;

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
