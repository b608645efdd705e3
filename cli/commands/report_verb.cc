// `wsim report BUNDLE` (commands.h; sim/report/issue_report.h): the issue-ready Markdown of a
// finding, on stdout or atomically into --out FILE.
#include <filesystem>

#include "cli/commands/commands.h"
#include "sim/report/bundle_finding.h"
#include "sim/report/issue_report.h"
#include "sim/run/atomic_write.h"
#include "sim/run/shell_quote.h"

namespace wsim::run {

namespace {

std::vector<std::string> repro_commands(const BundleFinding& finding) {
  std::vector<std::string> commands;
  const std::string replayed = finding.shrunk ? finding.dir + "-shrunk" : finding.dir;
  const std::string scripted = finding.dir + "-shrunk/scripted.textproto";
  std::error_code ec;
  if (finding.shrunk && std::filesystem::is_regular_file(scripted, ec)) {
    commands.push_back("wsim run --scenario " + shell_quote(scripted) +
                       "   # the readable script (see its header: does it reproduce?)");
  }
  // An external run's bundle replays with its process again (serve/README.md).
  std::string process;
  if (finding.bundle.scenario.scenario.has_external()) {
    process = " --";
    for (const std::string& arg : finding.bundle.scenario.scenario.external().command()) {
      process += " " + shell_quote(arg);
    }
    if (finding.bundle.scenario.scenario.external().command().empty()) process += " COMMAND";
  }
  commands.push_back("wsim replay " + shell_quote(replayed) + process + "   # the exact run");
  commands.push_back("wsim explain " + shell_quote(finding.dir) + " --html timeline.html");
  return commands;
}

}  // namespace

int cmd_report(const ReportCommand& command, std::ostream& out, std::ostream& err) {
  BundleFinding finding;
  std::string error;
  if (!replay_finding(command.bundle, command.original, command.known_dir, finding, error)) {
    err << "wsim report: " << error << "\n";
    return kExitUsage;
  }
  const RunResult& result = finding.result;
  if (result.verdict != Verdict::kSafety && result.verdict != Verdict::kLiveness) {
    err << "wsim report: " << finding.dir << ": the run replays to " << verdict_name(result.verdict)
        << ", not a violation: nothing to report\n";
    return kExitUsage;
  }
  if (!finding.label_error.empty()) {
    err << "wsim report: cannot label the finding: " << finding.label_error << "\n";
  }
  IssueReportInput input;
  input.system = finding.bundle.scenario.system;
  input.scenario = &finding.bundle.scenario.scenario;
  input.result = &result;
  input.realism = finding_realism(finding);
  if (result.labelled && !result.known.empty()) {
    input.evidence = evidence_of_known(command.known_dir, result.known, error);
    if (!input.evidence && !error.empty()) {
      err << "wsim report: cannot read the corpus's evidence: " << error << "\n";
    }
  }
  input.repro = repro_commands(finding);
  input.source = finding.dir;
  const std::string markdown = render_issue_report(input);
  if (command.out.empty()) {
    out << markdown;
    return 0;
  }
  if (!atomic_write_file(command.out, markdown, ExistingFile::kReplace, error)) {
    err << "wsim report: " << error << "\n";
    return kExitUsage;
  }
  out << "report: " << command.out << " (" << markdown.size() << " bytes)\n";
  return 0;
}

}  // namespace wsim::run
