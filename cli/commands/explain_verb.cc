// `wsim explain BUNDLE` (commands.h): replays the bundle (or its shrunk run), labels the finding
// against the corpus and prints the story; --html also writes the timeline page.
#include <fstream>

#include "cli/commands/commands.h"
#include "sim/report/bundle_finding.h"
#include "sim/report/explain.h"
#include "sim/report/timeline_html.h"

namespace wsim::run {

int cmd_explain(const ExplainCommand& command, std::ostream& out, std::ostream& err) {
  BundleFinding finding;
  std::string error;
  if (!replay_finding(command.bundle, command.original, command.known_dir, finding, error)) {
    err << "wsim explain: " << error << "\n";
    return kExitUsage;
  }
  if (!finding.label_error.empty()) {
    err << "wsim explain: cannot label the finding: " << finding.label_error << "\n";
  }
  const System& system = *finding.bundle.scenario.system;
  const proto::Scenario& scenario = finding.bundle.scenario.scenario;
  const RunResult& result = finding.result;
  out << explain_run(system, scenario, finding.tape, result, finding.source);
  if (result.signature) {
    out << "signature: " << result.signature->text() << "\n";
    if (result.labelled) out << (result.known.empty() ? "NEW" : "known: " + result.known) << "\n";
  }
  if (result.verdict == Verdict::kSafety || result.verdict == Verdict::kLiveness) {
    out << "realism: " << realism_text(finding_realism(finding)) << "\n";
  }
  if (!command.html.empty()) {
    std::ofstream file(command.html, std::ios::binary | std::ios::trunc);
    file << render_timeline_html(system, scenario, result);
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
