// RapidCheck over Gitpod scenarios, judged by finding signatures (issue #12 item 5): random
// scripted scenarios of the latest mk2 — users starting, stopping, aborting and writing, the
// kubelet rejecting pods, ws-daemon outages and restarts, kubectl deleting a CR — may hit the
// known bugs of that version (B2, B3, B6, B15, the #16997 delete, ...: docs/systems/gitpod.md §12,
// corpus/gitpod-findings.md), but every violation must carry the signature of a corpus bug
// (docs/signatures.md). There is no hand-kept list of invariant ids: a new bug with the same
// invariant as a known one still fails the property, and so does a known bug whose mechanism
// changed. Runs go past known safety violations (RunOptions::go_past_known), so a known bug early
// in a run does not hide a later, different one.
// A failure is shrunk by RapidCheck to a minimal scenario, printed as text format with its
// signature; triage it into the corpus (a new case), a port fix or a checker fix.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "model/gitpod/register.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::run {
namespace {

struct Action {
  const char* actor;
  const char* action;
  bool targets_node;  // The target is a node (node-1, node-2), not a user.
};
constexpr Action kActions[] = {
    {"user", "start", false},
    {"user", "start", false},
    {"user", "stop", false},
    {"user", "stop_immediate", false},
    {"user", "abort", false},
    {"user", "write", false},
    {"user", "write", false},
    {"kubelet", "reject", false},
    {"kubelet", "reject_after_ready", false},
    {"kubectl", "delete_workspace", false},
    {"ws-daemon", "down", true},
    {"ws-daemon", "up", true},
    {"ws-daemon", "restart", true},
    {"manager", "restart", true},
};
constexpr const char* kUsers[] = {"alice", "bob"};

struct GeneratedEvent {
  int at_steps = 0;  // × 2 s
  int action = 0;
  int target = 0;
};

rc::Gen<GeneratedEvent> gen_event() {
  return rc::gen::build<GeneratedEvent>(
      rc::gen::set(&GeneratedEvent::at_steps, rc::gen::inRange(0, 600)),
      rc::gen::set(&GeneratedEvent::action,
                   rc::gen::inRange(0, static_cast<int>(std::size(kActions)))),
      rc::gen::set(&GeneratedEvent::target, rc::gen::inRange(0, 2)));
}

std::string scenario_text(const std::vector<GeneratedEvent>& events) {
  std::string text =
      "seed: 1 scripted_only: true fault_phase_ms: 1200000 settle_ms: 2400000\n"
      "gitpod { manager: \"mk2\" nodes: 2 }\n"
      "events { at_ms: 0 actor: \"user\" action: \"start\" target: \"alice\" }\n";
  for (const GeneratedEvent& event : events) {
    const Action& action = kActions[event.action];
    const std::string target = action.targets_node ? "node-" + std::to_string(event.target + 1)
                                                   : std::string(kUsers[event.target]);
    text += "events { at_ms: " + std::to_string(2000L * event.at_steps) + " actor: \"" +
            action.actor + "\" action: \"" + action.action + "\" target: \"" + target + "\" }\n";
  }
  // A daemon left down would make every workspace on its node wait forever (B5, by design).
  text += "events { at_ms: 1199000 actor: \"ws-daemon\" action: \"up\" target: \"node-1\" }\n";
  text += "events { at_ms: 1199000 actor: \"ws-daemon\" action: \"up\" target: \"node-2\" }\n";
  return text;
}

const std::vector<KnownBug>& gitpod_known_bugs() {
  static const std::vector<KnownBug> bugs = [] {
    gitpod::register_gitpod_system();
    std::vector<KnownBug> out;
    std::string error;
    if (!known_bugs("corpus/regressions", "gitpod", out, error)) {
      ADD_FAILURE() << error;
    }
    return out;
  }();
  return bugs;
}

RunResult run_labelled(const std::string& text, const std::vector<KnownBug>& known) {
  gitpod::register_gitpod_system();
  LoadedScenario loaded;
  std::string error;
  RC_ASSERT(parse_scenario(text, "generated", loaded, error));
  RC_ASSERT(validate_scenario(loaded, error));
  RunOptions options;
  options.keep_trace = true;
  options.known = &known;
  options.go_past_known = true;
  return execute_run(*loaded.system, loaded.scenario, options);
}

RC_GTEST_PROP(GitpodSignatureProperties, LatestMk2FindsOnlyKnownBugs, ()) {
  const std::vector<KnownBug>& known = gitpod_known_bugs();
  RC_ASSERT(!known.empty());
  const auto events =
      *rc::gen::resize(10, rc::gen::container<std::vector<GeneratedEvent>>(gen_event()));
  const std::string text = scenario_text(events);
  const RunResult result = run_labelled(text, known);
  RC_LOG() << text << "verdict " << verdict_name(result.verdict) << " "
           << (result.violation ? result.violation->invariant_id + ": " + result.violation->message
                                : result.harness_error)
           << "\nsignature " << (result.signature ? result.signature->text() : std::string("-"))
           << "\n";
  RC_ASSERT(result.verdict != Verdict::kHarnessError);
  if (result.verdict == Verdict::kPass) return;
  RC_ASSERT(!result.known.empty());
}

// The property is not vacuous: its generator reaches known bugs (they are labelled, not absent),
// and the same run judged against an empty corpus is NEW.
TEST(GitpodSignatureProperties, TheGeneratorReachesAKnownBugThatAnEmptyCorpusCallsNew) {
  // B3: StopWorkspace 8 s after a rejected start (corpus stop-during-rejection-window).
  const std::vector<GeneratedEvent> b3 = {{0, 7, 0}, {4, 2, 0}};
  const std::string text = scenario_text(b3);
  const RunResult labelled = run_labelled(text, gitpod_known_bugs());
  ASSERT_NE(labelled.verdict, Verdict::kPass) << text;
  EXPECT_NE(labelled.known, "") << text;
  const std::vector<KnownBug> none;
  const RunResult unlabelled = run_labelled(text, none);
  EXPECT_EQ(unlabelled.verdict, labelled.verdict);
  EXPECT_EQ(unlabelled.known, "");
}

}  // namespace
}  // namespace wsim::run
