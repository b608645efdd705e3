// `wsim report BUNDLE` (sim/report/issue_report.h, cli/commands/report_verb.cc): an issue-ready
// Markdown of a finding — title, versions, realism, the numbered story, the known bug's upstream
// lines with links, the needs, the repro commands — on a realistic GitLab bug with an upstream
// block, a NEW finding, and a finding that needs an amplifier.
#include "sim/report/issue_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include "cli/commands/commands.h"
#include "model/gitlab/register.h"
#include "model/gitpod/register.h"
#include "sim/report/bundle_finding.h"
#include "sim/report/bundle_write.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The bundle of one run of the validated `loaded` (the run in `result` when not null).
std::string bundle_of(const std::string& name, const LoadedScenario& loaded,
                      RunResult* result = nullptr) {
  RunOptions options;
  options.keep_trace = true;
  options.record_choices = true;
  const RunResult run = execute_run(*loaded.system, loaded.scenario, options);
  std::string path;
  std::string error;
  EXPECT_TRUE(
      write_bundle(testing::scratch_dir(name), *loaded.system, loaded.scenario, run, path, error))
      << error;
  if (result != nullptr) *result = run;
  return path;
}

// A bundle of corpus file `file` (under corpus/regressions/gitlab) with `edit` applied.
std::string gitlab_bundle(const std::string& name, const std::string& file,
                          void (*edit)(proto::Scenario&)) {
  gitlab::register_gitlab_system();
  LoadedScenario loaded;
  std::string error;
  EXPECT_TRUE(load_scenario_file(
      std::string(WSIM_SOURCE_DIR) + "/corpus/regressions/gitlab/" + file, loaded, error))
      << error;
  edit(loaded.scenario);
  EXPECT_TRUE(validate_scenario(loaded, error)) << error;
  return bundle_of(name, loaded);
}

// A one-file corpus: the limbo script as bug "limbo" with an upstream block of two steps.
std::string limbo_corpus(const std::string& name) {
  const std::string dir = testing::scratch_dir(name);
  std::string text = testing::read_text(std::string(WSIM_SOURCE_DIR) +
                                        "/corpus/regressions/gitlab/limbo-411205.textproto");
  const std::size_t own = text.find("\nupstream {");  // The file's own block, if any.
  if (own != std::string::npos) text = text.substr(0, own + 1);
  testing::write_text(
      dir + "/limbo.textproto",
      text +
          "upstream {\n claim: REAL\n read_on: \"2026-11-29\"\n affects: \"A0a\"\n"
          " steps { says: \"the namespace goes\" repo: \"pluralsh/kubernetes-agent\"\n"
          "   file: \"internal/module/remote_development/agent/reconciler.go\" commit: "
          "\"ea4641ad\"\n"
          "   function: \"reconciler.Run\" lines: \"120-131\" }\n"
          " steps { says: \"Terminated is never reported\" repo: \"pluralsh/kubernetes-agent\"\n"
          "   file: \"internal/module/remote_development/agent/reconciler.go\" commit: "
          "\"ea4641ad\"\n"
          "   function: \"reconciler.Run\" lines: \"140\" }\n}\n");
  return dir;
}

std::string report(const ReportCommand& command) {
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(cmd_report(command, out, err), 0) << err.str();
  return out.str();
}

TEST(IssueReport, KnownRealisticBugCarriesItsUpstreamLinesAndRepro) {
  ReportCommand command;
  command.bundle = gitlab_bundle("report-limbo", "limbo-411205.textproto",
                                 [](proto::Scenario& s) { s.mutable_gitlab()->set_agent("A0a"); });
  command.known_dir = limbo_corpus("report-limbo-corpus");
  const std::string md = report(command);
  EXPECT_THAT(md, HasSubstr("# gitlab: gitlab.L1 — "));
  EXPECT_THAT(md, HasSubstr("(ws-0)"));
  EXPECT_THAT(md, HasSubstr("| versions | `agent=A0a"));
  EXPECT_THAT(md, HasSubstr("| known bug | `gitlab-411205` (wsim corpus: " + command.known_dir +
                            "/limbo.textproto#0; 1 file)"));
  EXPECT_THAT(md, HasSubstr("| affects | A0a |"));
  EXPECT_THAT(md, HasSubstr("| realism | **realistic**"));
  EXPECT_THAT(md, HasSubstr("| broken | `gitlab.L1` (LIVENESS_VIOLATION)"));
  EXPECT_THAT(md, HasSubstr("## What happens\n\n1. "));
  EXPECT_THAT(md, HasSubstr("kubectl **delete**"));
  EXPECT_THAT(md, HasSubstr("**terminate**"));
  EXPECT_THAT(
      md, HasSubstr("1. the namespace goes — [`internal/module/remote_development/agent/"
                    "reconciler.go:120-131`](https://github.com/pluralsh/kubernetes-agent/blob/"
                    "ea4641ad/internal/module/remote_development/agent/reconciler.go#L120-L131)"));
  EXPECT_THAT(md, HasSubstr("reconciler.go#L140)"));
  EXPECT_THAT(md, HasSubstr("wsim replay " + command.bundle));
  EXPECT_THAT(md, Not(HasSubstr("## Needs")));
  EXPECT_LT(md.size(), 6000u);     // Pastes into an issue.
  EXPECT_EQ(report(command), md);  // Deterministic.
  // --out writes the same text atomically.
  command.out = command.bundle + "/../report.md";
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cmd_report(command, out, err), 0) << err.str();
  EXPECT_EQ(testing::read_text(command.out), md);
}

TEST(IssueReport, NewFindingSaysNoChainWasRead) {
  ReportCommand command;
  command.bundle = gitlab_bundle("report-new", "limbo-411205.textproto",
                                 [](proto::Scenario& s) { s.mutable_gitlab()->set_agent("A0a"); });
  command.known_dir = testing::scratch_dir("report-empty-corpus");
  const std::string md = report(command);
  EXPECT_THAT(md, HasSubstr("NEW finding"));
  EXPECT_THAT(md, HasSubstr("no upstream chain has been read"));
}

TEST(IssueReport, AnAmplifiedFindingNamesTheAmplifierItNeeds) {
  // timestamp-tie on R3 with its 10 s Rails clock: the tie is gone at production's clock.
  ReportCommand command;
  command.bundle = gitlab_bundle("report-tie", "timestamp-tie.textproto", [](proto::Scenario& s) {
    s.mutable_gitlab()->set_agent("A3");
    s.mutable_gitlab()->set_rails("R3");
  });
  command.known_dir = testing::scratch_dir("report-empty-corpus-2");
  const std::string md = report(command);
  EXPECT_THAT(md, HasSubstr("| realism | **needs "));
  EXPECT_THAT(md, HasSubstr("## Needs\n\n- `gitlab.rails_clock_granularity_ms`: "));
  EXPECT_THAT(md, HasSubstr("gitlab.S14"));
}

// A long story (a hunted Gitpod run: three users over 18 minutes, then the clean-up) keeps its
// turning points — the users' calls, the faulted steps — rather than only the last
// steps before the violation, which are the clean-up.
TEST(IssueReport, ALongStoryKeepsItsTurningPoints) {
  gitpod::register_gitpod_system();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(parse_scenario(R"(
    seed: 9 fault_phase_ms: 7200000 settle_ms: 7200000
    gitpod { manager: "mk2" fixes: "all" workspaces: 3 nodes: 2 user_action_interval_ms: 60000 }
  )",
                             "report-long", loaded, error))
      << error;
  ASSERT_TRUE(validate_scenario(loaded, error)) << error;
  RunResult result;
  const std::string path = bundle_of("report-long", loaded, &result);
  ASSERT_TRUE(result.violation);
  ReportCommand command;
  command.bundle = path;
  command.known_dir = testing::scratch_dir("report-empty-corpus-3");
  const std::string md = report(command);
  const std::size_t begin = md.find("## What happens");
  const std::size_t end = md.find("## Upstream code");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string story = md.substr(begin, end - begin);
  EXPECT_THAT(story, HasSubstr("other steps (in the bundle's trace.txt)"));
  EXPECT_THAT(story, HasSubstr("user"));
  EXPECT_THAT(story, HasSubstr("**violation**"));
  EXPECT_LE(static_cast<std::size_t>(std::count(story.begin(), story.end(), '\n')),
            kIssueStoryLinesMax + 3);  // The heading, its blank lines and the numbered lines.
}

TEST(IssueReport, APassingBundleIsNotReported) {
  ReportCommand command;
  command.bundle = gitlab_bundle("report-pass", "limbo-411205.textproto",
                                 [](proto::Scenario& s) { s.mutable_gitlab()->set_agent("A1"); });
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(cmd_report(command, out, err), kExitUsage);
  EXPECT_THAT(err.str(), HasSubstr("nothing to report"));
}

// A hunt bundle records the realism of its run's first finding, and a shrunk run may end in
// another bug (a swallowed action gone past, then a timestamp tie): a recorded realism is used
// only for the failure it was recorded for (same invariant and label), never borrowed.
TEST(IssueReport, ARecordedRealismOfAnotherLabelIsNotBorrowed) {
  const std::string bundle =
      gitlab_bundle("report-borrowed", "timestamp-tie.textproto", [](proto::Scenario& s) {
        s.mutable_gitlab()->set_agent("A3");
        s.mutable_gitlab()->set_rails("R3");
      });
  const std::string corpus = std::string(WSIM_SOURCE_DIR) + "/corpus/regressions";
  BundleFinding finding;
  std::string error;
  ASSERT_TRUE(replay_finding(bundle, false, corpus, finding, error)) << error;
  ASSERT_TRUE(finding.result.labelled && !finding.result.known.empty());
  const std::string verdict_path = bundle + "/verdict.json";
  nlohmann::json verdict = nlohmann::json::parse(testing::read_text(verdict_path));
  verdict["realism"] = {
      {"label", "realistic"}, {"amplifiers", nlohmann::json::array()}, {"why", "borrowed"}};
  verdict["known"] = "corpus/regressions/gitlab/swallowed-user-action.textproto#0";
  testing::write_text(verdict_path, verdict.dump(1));
  const Realism checked = finding_realism(finding);
  EXPECT_NE(checked.why, "borrowed");
  EXPECT_FALSE(checked.realistic);          // The tie needs the 1 s clock.
  verdict["known"] = finding.result.known;  // Recorded for this very label: used as it is.
  testing::write_text(verdict_path, verdict.dump(1));
  EXPECT_EQ(finding_realism(finding).why, "borrowed");
}

}  // namespace
}  // namespace wsim::run
