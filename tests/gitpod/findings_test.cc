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
  // Drop the crash: the ordering violation alone (docs/systems/gitpod.md §11.1 S2, B0).
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

// B0's crash variant, re-checked against upstream (issue #30): Workspace.Dispose removes the
// session's state file before the content (ws-daemon pkg/internal/session/workspace.go @
// 2cfe264c1236^ Dispose :210 before :247), and the restarted ws-daemon finds a session only
// through that file (controller/workspace_provider.go @ 2cfe264c1236^ Get :55-72). So
// DisposeWorkspace fails before any upload ("cannot find workspace") and BackupFailure is written
// over a good backup: a spurious failure, nothing lost. The port used to re-upload the
// half-deleted session over the good backup ("backup overwritten", gitpod.no_silent_loss).
TEST(GitpodFindings, B0CrashMidDeleteIsASpuriousBackupFailure) {
  proto::Scenario s = load_scenario(corpus("partial-backup-pre16997"));
  proto::ScriptedEvent* crash = s.add_events();
  crash->set_at_ms(100000);
  crash->set_actor("ws-daemon");
  crash->set_action("crash_during_delete");
  crash->set_target("all");
  (*crash->mutable_args())["restart_after_ms"] = "5000";
  const Outcome o = run_gitpod(s, /*keep_going=*/true);
  EXPECT_FALSE(o.has("gitpod.no_silent_loss")) << o.describe();
  EXPECT_NE(o.state.find("backup=v1"), std::string::npos) << o.describe();
  EXPECT_EQ(o.state.find("partial"), std::string::npos) << o.describe();
  bool crashed = false;
  bool no_session_after_crash = false;
  bool uploaded_after_crash = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor != "ws-daemon/node-1") continue;
    if (e.verb == "crash") crashed = true;
    if (crashed && e.verb == "backup" && e.result == "failed" && e.detail == "no session") {
      no_session_after_crash = true;
    }
    if (crashed && e.verb == "backup" && e.result == "ok") uploaded_after_crash = true;
  }
  EXPECT_TRUE(crashed) << o.describe();
  EXPECT_TRUE(no_session_after_crash) << o.describe();
  EXPECT_FALSE(uploaded_after_crash) << o.describe();
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

// B15 was a port artifact (docs/fidelity.md U1): the second start, 8 s in, never reaches
// ws-manager. The server answers with alice-1, whose phase it last saw as not stopped — the
// subscriber publishes nothing while PodRejected is True (ws-manager-mk2
// controllers/subscriber_controller.go @ 4f45d02eac95 Reconcile :64-68), and startWorkspace
// starts nothing unless the current instance is stopped (components/server/src/workspace/
// workspace-service.ts @ 4f45d02eac95 :822-846). Until issue #30 the second start made alice-2
// and the reset revived alice-1 (gitpod.S9).
TEST(GitpodFindings, B15StartInTheRejectionWindowIsAnsweredWithTheRejectedInstance) {
  const Outcome o = run_gitpod(load_scenario(corpus("start-during-rejection-window")));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  bool answered_current = false;
  bool second_instance = false;
  bool recreated = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor == "server" && e.verb == "start" && e.result == "current" && e.time_ms == 8000) {
      answered_current = e.detail.find("current instance alice-1 not stopped") == 0;
    }
    if (e.object.find("alice-2") != std::string::npos) second_instance = true;
    if (e.verb == "recreate" && e.object == "alice-1" && e.result == "ok") recreated = true;
  }
  EXPECT_TRUE(answered_current) << o.describe();
  EXPECT_FALSE(second_instance) << o.describe();
  EXPECT_TRUE(recreated) << o.describe();
  EXPECT_NE(o.state.find("alice-1 phase=Running podStarts=2 podRecreated=1"), std::string::npos)
      << o.describe();
}

// N10 re-examined (2026-11-29, docs/fidelity.md U2): ws-daemon's re-init after a restart between
// the init and the ContentReady write is real — handleWorkspaceInit
// (pkg/controller/workspace_controller.go @ 4f45d02eac95 :169) runs InitWorkspace whenever
// ContentReady is absent, and InitWorkspace (workspace_operations.go :133-197) cleans the slate
// (:178) — but it destroys nothing a user wrote: the IDE opens only once the phase is "running"
// (components/supervisor/frontend/src/index.ts :137), which needs ContentReady. The user's write
// is refused, the re-init runs over version 0, nothing is lost.
TEST(GitpodFindings, N10ReinitAfterDaemonRestartLosesNoUserWrite) {
  const Outcome o = run_gitpod(load_scenario(corpus("daemon-crash-after-init")));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  bool crashed = false;
  bool write_refused = false;
  bool reinit_over_nothing = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor == "ws-daemon/node-1" && e.verb == "crash") crashed = true;
    if (e.verb == "write" && e.result == "refused" && e.detail == "not running") {
      write_refused = true;
    }
    if (crashed && e.verb == "init" &&
        e.detail.find("clean slate over version 0") != std::string::npos) {
      reinit_over_nothing = true;
    }
  }
  EXPECT_TRUE(crashed) << o.describe();
  EXPECT_TRUE(write_refused) << o.describe();
  EXPECT_TRUE(reinit_over_nothing) << o.describe();
  proto::Scenario mk1 = load_scenario(corpus("daemon-crash-after-init"));
  mk1.mutable_gitpod()->set_manager("mk1-plis");
  const Outcome m = run_gitpod(mk1);
  EXPECT_EQ(m.verdict, proto::PASS) << m.describe();
}

// Checker fix (seed 266 of the guard hunt): L4 judges the start. One rejection at admission,
// one re-creation, Running; then a rejection after ready takes #20372's failure path and the CR
// is deleted. That is no L4 violation.
TEST(GitpodFindings, L4IgnoresHowARecoveredStartEndsLater) {
  const Outcome o =
      run_gitpod(load_scenario(corpus("rejected-then-running-then-rejected-after-ready")));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  bool recreated = false;
  bool rejected_running = false;
  bool deleted = false;
  for (const TraceEvent& e : o.trace) {
    if (e.verb == "recreate" && e.result == "ok") recreated = true;
    if (recreated && e.verb == "reject" && e.detail.find("re-admitted") != std::string::npos) {
      rejected_running = true;
    }
    if (rejected_running && e.verb == "delete-workspace" && e.result == "ok") deleted = true;
  }
  EXPECT_TRUE(recreated) << o.describe();
  EXPECT_TRUE(rejected_running) << o.describe();
  EXPECT_TRUE(deleted) << o.describe();
}

// Checker fix (breaker hunt seed 92, latest mk2; docs/dismissals.md): an operator deletes the CR
// of a rejected start stuck in Stopping (ws-daemon down); when ws-daemon is back, ws-manager
// re-creates the pod of the deleting CR, deletes it and removes the CR, as upstream's actOnStatus
// does (workspace_controller.go @ 4f45d02eac95 :236-277, :196-234, :347-348, :279-300). The
// workspace ends deleted by request: no L4 violation.
TEST(GitpodFindings, L4ExemptsAStartWhoseCrAnOperatorDeleted) {
  const Outcome o = run_gitpod(load_scenario(corpus("rejected-cr-deleted-then-daemon-returns")));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  bool operator_deleted = false;
  bool recreated = false;
  bool pod_created = false;
  bool cr_removed = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor == "kubectl" && e.verb == "delete" && e.result == "ok") operator_deleted = true;
    if (operator_deleted && e.verb == "recreate" && e.result == "ok") recreated = true;
    if (recreated && e.verb == "create-pod" && e.result == "ok") pod_created = true;
    if (pod_created && e.verb == "delete-workspace") cr_removed = true;
  }
  EXPECT_TRUE(operator_deleted) << o.describe();
  EXPECT_TRUE(recreated) << o.describe();
  EXPECT_TRUE(pod_created) << o.describe();
  EXPECT_TRUE(cr_removed) << o.describe();
  EXPECT_EQ(o.state.find("alice-1 phase="), std::string::npos) << o.describe();
}

// Checker fix (seed 14623 of the guard hunt): a timeout-driven stop that began 4 min before the
// end is still waiting for the container (force kill after 5 min, #20382): not stuck (L2).
TEST(GitpodFindings, L2GivesALateStopTimeToFinish) {
  const Outcome o = run_gitpod(load_scenario(corpus("timeout-late-in-settle")));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  EXPECT_NE(o.state.find("phase=Stopping"), std::string::npos) << o.describe();
  EXPECT_NE(o.state.find("Timeout=True"), std::string::npos) << o.describe();
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
