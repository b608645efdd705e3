// What happens *after* the first violation of some corpus cases (keep_going runs), and checks
// behind corpus/gitpod-findings.md that one verdict cannot show.
#include <gtest/gtest.h>

#include "tests/gitpod/scenario_runner.h"

namespace wsim::gitpod::testing {
namespace {

std::string corpus(const std::string& name) {
  return std::string(WSIM_SOURCE_DIR) + "/corpus/regressions/gitpod/" + name + ".textproto";
}

TEST(GitpodFindings, B9WipesEverReadyContentSilently) {
  const Outcome o = run_gitpod(load_scenario(corpus("reject-after-ready-20243-without-20372")),
                               /*keep_going=*/true);
  EXPECT_TRUE(o.has("gitpod.S3")) << o.describe();
  EXPECT_TRUE(o.has("gitpod.no_silent_loss")) << o.describe();
  EXPECT_NE(o.state.find("ws-daemon wipe, silent"), std::string::npos) << o.describe();
}

TEST(GitpodFindings, B0DeletesContentBeforeTheBackupConditionEvenWithoutACrash) {
  proto::Scenario s = load_scenario(corpus("partial-backup-pre16997"));
  // Drop the crash: the ordering violation alone (research §11.1 S2, B0).
  proto::Scenario without_crash = s;
  without_crash.clear_events();
  for (const proto::ScriptedEvent& e : s.events()) {
    if (e.action() != "crash_during_delete") *without_crash.add_events() = e;
  }
  const Outcome o = run_gitpod(without_crash);
  ASSERT_TRUE(o.violation.has_value()) << o.describe();
  EXPECT_EQ(o.violation->invariant_id, "gitpod.S2") << o.describe();
  EXPECT_FALSE(o.has("gitpod.no_silent_loss")) << o.describe();
}

TEST(GitpodFindings, B0CrashOverwritesTheGoodBackupWithAPartialOne) {
  const Outcome o = run_gitpod(load_scenario(corpus("partial-backup-pre16997")), true);
  EXPECT_NE(o.state.find("backup=v1 partial"), std::string::npos) << o.describe();
}

TEST(GitpodFindings, B1ResurrectedPodAfterStop) {
  const Outcome o = run_gitpod(load_scenario(corpus("status-conflict-pre16622")), true);
  EXPECT_TRUE(o.has("gitpod.S5")) << o.describe();
}

TEST(GitpodFindings, B11AbortLeavesContentOnDisk) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 14 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" report_acknowledged_loss: false }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 90000 actor: "user" action: "abort" target: "alice" }
  )"));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  // The loss is explicit (Aborted); the session is never deleted: a disk leak, not a data loss.
  EXPECT_NE(o.state.find("acknowledged: Aborted"), std::string::npos) << o.describe();
}

TEST(GitpodFindings, B10FailedWipeCountsAsDisposedAndIsRecreated) {
  const Outcome o = run_gitpod(load_scenario(corpus("wipe-failure-recreated")), true);
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  bool wipe_failed = false;
  bool recreated_after = false;
  for (const TraceEvent& e : o.trace) {
    if (e.verb == "wipe" && e.result == "failed") wipe_failed = true;
    if (wipe_failed && e.verb == "recreate" && e.result == "ok") recreated_after = true;
  }
  EXPECT_TRUE(wipe_failed) << o.describe();
  EXPECT_TRUE(recreated_after) << o.describe();
  // The reset erased Failed; the workspace ends Running on the re-created pod.
  EXPECT_NE(o.state.find("phase=Running podStarts=2 podRecreated=1"), std::string::npos)
      << o.describe();
  EXPECT_EQ(o.state.find("Failed=True"), std::string::npos) << o.describe();
}

TEST(GitpodFindings, SameSeedSameFingerprint) {
  const proto::Scenario s = parse_scenario_text(R"(
    seed: 21 fault_phase_ms: 1800000 settle_ms: 1800000
    gitpod { manager: "mk2" workspaces: 3 }
  )");
  const Outcome a = run_gitpod(s);
  const Outcome b = run_gitpod(s);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  proto::Scenario other = s;
  other.set_seed(22);
  EXPECT_NE(run_gitpod(other).fingerprint, a.fingerprint);
}

}  // namespace
}  // namespace wsim::gitpod::testing
