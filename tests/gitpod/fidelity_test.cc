// Fidelity of the Gitpod ports to upstream (issue #10; docs/fidelity.md): each test states the
// upstream rule it pins and fails on the port as it was before.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "model/gitpod/conditions.h"
#include "model/gitpod/names.h"
#include "model/gitpod/run.h"
#include "sim/kube/controllers/controller_util.h"
#include "tests/gitpod/scenario_runner.h"

namespace wsim::gitpod::testing {
namespace {

constexpr const char* kDaemon = "ws-daemon/node-1";

// One user starts, writes, stops; one node. `extra` adds scripted events.
std::string backup_scenario(const std::string& extra) {
  return R"(
    seed: 21 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" nodes: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )" + extra;
}

// The time of the first trace event of `actor` with `verb` on an object containing `object`
// after `after_ms`.
std::optional<TimeMs> first(const Outcome& o, const std::string& actor, const std::string& verb,
                            const std::string& object, TimeMs after_ms = 0) {
  for (const TraceEvent& e : o.trace) {
    if (e.time_ms >= after_ms && e.actor == actor && e.verb == verb &&
        e.object.find(object) != std::string::npos) {
      return e.time_ms;
    }
  }
  return std::nullopt;
}

bool traced(const Outcome& o, const std::string& actor, const std::string& verb,
            const std::string& result) {
  for (const TraceEvent& e : o.trace) {
    if (e.actor == actor && e.verb == verb && e.result == result) return true;
  }
  return false;
}

// The scripted API fault rule "the next `times` updates of Workspace/alice-1 by ws-daemon answer
// `action`", armed at `at_ms`.
std::string daemon_update_fault(TimeMs at_ms, const std::string& action, int times) {
  return "events { at_ms: " + std::to_string(at_ms) + " actor: \"api\" action: \"" + action +
         "\" target: \"Workspace/alice-1\" args { key: \"verb\" value: \"update\" } args { key: "
         "\"identity\" value: \"" +
         kDaemon + "\" } args { key: \"times\" value: \"" + std::to_string(times) + "\" } }";
}

// Arms `action` × times on ws-daemon's first Workspace update after its backup upload started
// (i.e. the BackupComplete write): 1 ms after the Refresh write that precedes the upload.
Outcome run_with_backup_write_fault(const std::string& action, int times) {
  const Outcome clean = run_gitpod(parse_scenario_text(backup_scenario("")));
  EXPECT_EQ(clean.verdict, proto::PASS) << clean.describe();
  const std::optional<TimeMs> backup = first(clean, kDaemon, "backup", "alice-1");
  EXPECT_TRUE(backup.has_value()) << clean.describe();
  // The Refresh write is the last ws-daemon update before the upload (which takes ≥ 1 s).
  std::optional<TimeMs> refresh;
  for (const TraceEvent& e : clean.trace) {
    if (backup && e.time_ms < *backup - 900 && e.actor == kDaemon && e.verb == "update") {
      refresh = e.time_ms;
    }
  }
  EXPECT_TRUE(refresh.has_value()) << clean.describe();
  return run_gitpod(parse_scenario_text(backup_scenario(
                        daemon_update_fault(refresh.value_or(0) + 1, action, times))),
                    /*keep_going=*/true);
}

// ws-daemon doWorkspaceContentBackup (#16997+): the BackupComplete / BackupFailure write is
// retry.RetryOnConflict(retryParams) with 10 steps; when it fails the error is only logged and
// DeleteWorkspace still runs: the local content is deleted although no condition authorises it
// (gitpod.S2) — a real upstream content-loss window. The old port refused to delete.
TEST(GitpodFidelity, DaemonDeletesContentEvenWhenTheBackupConditionWriteFails) {
  const Outcome o = run_with_backup_write_fault("error", 1);
  EXPECT_TRUE(traced(o, kDaemon, "backup-condition", "failed")) << o.describe();
  EXPECT_TRUE(traced(o, kDaemon, "delete-content", "ok")) << o.describe();
  EXPECT_TRUE(o.has("gitpod.S2")) << o.describe();
}

// The same write survives 9 conflicts (10 steps of 10 ms × 2ⁿ + jitter) and fails on 10.
TEST(GitpodFidelity, DaemonBackupConditionWriteRetriesTenStepsOnConflict) {
  const Outcome nine = run_with_backup_write_fault("conflict", 9);
  EXPECT_FALSE(traced(nine, kDaemon, "backup-condition", "failed")) << nine.describe();
  EXPECT_FALSE(nine.has("gitpod.S2")) << nine.describe();
  const Outcome ten = run_with_backup_write_fault("conflict", 10);
  EXPECT_TRUE(traced(ten, kDaemon, "backup-condition", "failed")) << ten.describe();
  EXPECT_TRUE(ten.has("gitpod.S2")) << ten.describe();
}

// ws-daemon doWipeWorkspace: after a successful wipe a failed StateWiped write is only logged
// (write-condition in the trace) and the reconcile returns success — no requeue. The old port
// returned an error and retried.
TEST(GitpodFidelity, DaemonWipeSucceedsEvenWhenTheStateWipedWriteFails) {
  const std::string base = R"(
    seed: 11 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" nodes: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 0 actor: "kubelet" action: "reject" target: "alice" }
  )";
  const Outcome clean = run_gitpod(parse_scenario_text(base));
  const std::optional<TimeMs> wipe = first(clean, kDaemon, "wipe", "alice-1");
  ASSERT_TRUE(wipe.has_value()) << clean.describe();
  std::optional<TimeMs> refresh;
  for (const TraceEvent& e : clean.trace) {
    if (e.time_ms < *wipe && e.actor == kDaemon && e.verb == "update") refresh = e.time_ms;
  }
  ASSERT_TRUE(refresh.has_value()) << clean.describe();
  const Outcome o =
      run_gitpod(parse_scenario_text(base + daemon_update_fault(*refresh + 1, "error", 1)), true);
  bool write_failed = false;
  int wipes = 0;
  for (const TraceEvent& e : o.trace) {
    if (e.actor != kDaemon) continue;
    if (e.verb == "write-condition" && e.detail.find("StateWiped") != std::string::npos) {
      write_failed = true;
    }
    if (e.verb == "wipe") ++wipes;
  }
  EXPECT_TRUE(write_failed) << o.describe();
  EXPECT_GE(wipes, 2) << o.describe();
  // Not a stall here: the reconcile returned success, but ws-daemon's own Refresh write comes
  // back as a CR event (the key was dirty), so it reconciles again, finds no session, wipes
  // ("no session") and this time writes StateWiped; the workspace is re-created.
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
}

// service/manager.go StopWorkspace(ABORT): two modifyWorkspace writes, Aborted first, then
// StoppedByRequest (the old port wrote both at once).
TEST(GitpodFidelity, AbortIsTwoWritesAbortedThenStoppedByRequest) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 14 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" report_acknowledged_loss: false }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 90000 actor: "user" action: "abort" target: "alice" }
  )"));
  const std::optional<TimeMs> aborted = first(o, "ws-manager", "abort-request", "alice-1");
  const std::optional<TimeMs> stopped = first(o, "ws-manager", "stop-request", "alice-1");
  ASSERT_TRUE(aborted.has_value()) << o.describe();
  ASSERT_TRUE(stopped.has_value()) << o.describe();
  EXPECT_LT(*aborted, *stopped);
}

// service/manager.go modifyWorkspace: RetryOnConflict retries Conflicts only; any other error
// (a 500) fails StopWorkspace at once (the old port retried every error 10 times).
TEST(GitpodFidelity, StopWorkspaceRetriesOnConflictOnly) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 14 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 89000 actor: "api" action: "error" target: "Workspace/alice-1" args { key: "verb" value: "update" } args { key: "identity" value: "ws-manager" } args { key: "times" value: "1" } }
    events { at_ms: 90000 actor: "user" action: "stop" target: "alice" }
  )"),
                               true);
  bool failed_stop = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor == "ws-manager" && e.verb == "stop-request" && e.result != "ok") failed_stop = true;
  }
  EXPECT_TRUE(failed_stop) << o.describe();  // The scripted 500 hit StopWorkspace's write.
  EXPECT_FALSE(traced(o, "ws-manager", "stop-request", "ok")) << o.describe();
}

// mk1 PLIS era event delivery (monitor.go onPodEvent / onConfigMapEvent, PodPoolFeeder,
// configmap_controller.go at 724ed7a92a^): finalization starts only when a PLIS event is handled
// after the pod is gone, and the pod's Deleted event is what produces that PLIS event (its
// status has Deployed=false, so the STOPPING handling patches the PLIS). If exactly that final
// patch fails (4 Conflicts exhaust DefaultBackoff), nothing finalizes; 60 minutes later the
// dangling-PLIS GC deletes the PLIS and the content on the node is orphaned. The old port started
// finalization straight from the pod deletion, so this path was unreachable.
TEST(GitpodFidelity, Mk1FailedFinalPlisPatchLeavesTheContentToTheDanglingPlisGc) {
  const std::string base = R"(
    seed: 7 scripted_only: true fault_phase_ms: 600000 settle_ms: 7200000
    gitpod { manager: "mk1-plis" nodes: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )";
  const Outcome clean = run_gitpod(parse_scenario_text(base));
  EXPECT_EQ(clean.verdict, proto::PASS) << clean.describe();
  const std::optional<TimeMs> removed = first(clean, "kubelet/node-1", "remove", "alice-1");
  ASSERT_TRUE(removed.has_value()) << clean.describe();
  EXPECT_TRUE(first(clean, "ws-manager", "finalize", "alice-1").has_value()) << clean.describe();
  const std::string conflicts =
      "events { at_ms: " + std::to_string(*removed) +
      " actor: \"api\" action: \"conflict\" target: \"ConfigMap/plis-alice-1\" args { key: "
      "\"identity\" value: \"ws-manager\" } args { key: \"times\" value: \"4\" } }";
  const Outcome o = run_gitpod(parse_scenario_text(base + conflicts));
  EXPECT_FALSE(first(o, "ws-manager", "finalize", "alice-1").has_value()) << o.describe();
  ASSERT_TRUE(o.violation.has_value()) << o.describe();
  EXPECT_EQ(o.violation->invariant_id, "gitpod.no_silent_loss") << o.describe();
  EXPECT_NE(o.describe().find("orphaned"), std::string::npos) << o.describe();
}

// workspace_controller.go actOnStatus (0 pods, Stopped): deleteWorkspaceSecrets' error (each
// secret: 3 steps of Get + Delete) is returned before the CR finalizer is removed; the CR is
// deleted only by a later reconcile. The old port ignored the error and removed the finalizer.
// The stop comes before Running: a Running workspace deletes its secrets already (best effort).
TEST(GitpodFidelity, FailedSecretDeleteBlocksTheCrFinalizerRemoval) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 14 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" }
    events { at_ms: 0 actor: "api" action: "error" target: "Secret/alice-1-env" args { key: "verb" value: "delete" } args { key: "identity" value: "ws-manager" } args { key: "times" value: "3" } }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 1000 actor: "user" action: "stop" target: "alice" }
  )"));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  const std::optional<TimeMs> blocked = first(o, "ws-manager", "delete-secrets", "alice-1");
  const std::optional<TimeMs> deleted = first(o, "ws-manager", "delete-workspace", "alice-1");
  ASSERT_TRUE(blocked.has_value()) << o.describe();
  ASSERT_TRUE(deleted.has_value()) << o.describe();
  EXPECT_LT(*blocked, *deleted);
}

// gitpod.S10: the same blocked secret deletion (every delete of the env secret fails), and a
// writer that removes the CR finalizer of the Stopped workspace with no pod anyway — what a
// finalize that swallowed the secret error would do (tests/mutants/
// gp_mk2_secret_deletion_error_swallowed.patch). S6 holds (Stopped, no pod); S10 fires.
TEST(GitpodFidelity, CrFinalizerRemovedWhileASecretRemainsViolatesS10) {
  const proto::Scenario scenario = parse_scenario_text(R"(
    seed: 14 scripted_only: true fault_phase_ms: 600000 settle_ms: 600000
    gitpod { manager: "mk2" }
    events { at_ms: 0 actor: "api" action: "error" target: "Secret/alice-1-env" args { key: "verb" value: "delete" } args { key: "identity" value: "ws-manager" } args { key: "times" value: "1000" } }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 1000 actor: "user" action: "stop" target: "alice" }
  )");
  bool stripped = false;
  auto setup = [&stripped](Sim& sim, run::SystemRun& run) {
    GitpodWorld& world = dynamic_cast<GitpodRun&>(run).world();
    sim.loop().schedule(300000, [&world, &stripped] {
      const kube::ObjectRef ref{kWorkspaceKind, kNamespace, "alice-1"};
      const kube::Object* ws = world.api().peek(ref);
      if (ws == nullptr || phase(*ws) != kPhaseStopped || !kube::has_finalizer(*ws, kFinalizer)) {
        return;
      }
      kube::MergePatch patch;
      patch.finalizers = kube::without_finalizer(ws->meta.finalizers, kFinalizer);
      stripped = world.api().server_patch(ref, patch, kube::Subresource::kMain, "ws-manager").ok();
    });
  };
  const Outcome o = run_gitpod_with(scenario, /*keep_going=*/true, setup);
  ASSERT_TRUE(stripped) << "the CR was not Stopped with its finalizer at 300 s\n" << o.describe();
  EXPECT_TRUE(o.has("gitpod.S10")) << o.describe();
  EXPECT_FALSE(o.has("gitpod.S6")) << o.describe();
  // Without the strip, the finalize stays blocked and nothing removes the finalizer: no S10.
  EXPECT_FALSE(run_gitpod(scenario, /*keep_going=*/true).has("gitpod.S10"));
}

// gitpod.S2's corollary judges the pod finalizer's removal on the CR as it entered Stopped or as
// it is now (B11: a late ContentReady on a Stopped CR no longer makes a removal unauthorized;
// corpus stopped-late-content-ready). It keeps its teeth: the pod finalizer removed by
// ws-manager's identity while the workspace is Running is an S2.
TEST(GitpodFidelity, PodFinalizerRemovedWhileRunningIsAnS2) {
  const kube::ObjectRef pod{"Pod", kNamespace, "ws-alice-1"};
  const proto::Scenario running = parse_scenario_text(R"(
    seed: 3 scripted_only: true fault_phase_ms: 600000 settle_ms: 600000
    gitpod { manager: "mk2" }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
  )");
  bool stripped = false;
  auto strip_while_running = [&](Sim& sim, run::SystemRun& run) {
    GitpodWorld& world = dynamic_cast<GitpodRun&>(run).world();
    sim.loop().schedule(60000, [&world, &stripped, pod] {
      const kube::Object* p = world.api().peek(pod);
      if (p == nullptr || !kube::has_finalizer(*p, kFinalizer)) return;
      kube::MergePatch patch;
      patch.finalizers = kube::without_finalizer(p->meta.finalizers, kFinalizer);
      stripped = world.api().server_patch(pod, patch, kube::Subresource::kMain, "ws-manager").ok();
    });
  };
  const Outcome bad = run_gitpod_with(running, /*keep_going=*/true, strip_while_running);
  ASSERT_TRUE(stripped) << bad.describe();
  EXPECT_TRUE(bad.has("gitpod.S2")) << bad.describe();
}

// gitpod.S11: MarkActive at 10 min; the timeout controller on its own times the workspace out
// 30 min later (no S11). A writer that sets Timeout "inactivity" at 20 min — what a controller
// counting from the CR's creation or from a stale activity would do (tests/mutants/
// gp_mk2_inactivity_from_creation.patch) — violates S11.
TEST(GitpodFidelity, InactivityTimeoutSoonAfterAnAnsweredMarkActiveViolatesS11) {
  const proto::Scenario scenario = parse_scenario_text(R"(
    seed: 3 scripted_only: true fault_phase_ms: 3600000 settle_ms: 1800000
    gitpod { manager: "mk2" }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 600000 actor: "user" action: "mark_active" target: "alice" }
  )");
  const Outcome natural = run_gitpod(scenario, /*keep_going=*/true);
  const std::optional<TimeMs> timed_out = first(natural, "ws-manager", "timeout", "alice-1");
  ASSERT_TRUE(timed_out.has_value()) << natural.describe();
  EXPECT_GE(*timed_out, 600000 + 1800000) << natural.describe();
  EXPECT_FALSE(natural.has("gitpod.S11")) << natural.describe();
  bool marked = false;
  auto setup = [&marked](Sim& sim, run::SystemRun& run) {
    GitpodWorld& world = dynamic_cast<GitpodRun&>(run).world();
    sim.loop().schedule(1200000, [&world, &sim, &marked] {
      const kube::ObjectRef ref{kWorkspaceKind, kNamespace, "alice-1"};
      const kube::Object* ws = world.api().peek(ref);
      if (ws == nullptr || phase(*ws) != kPhaseRunning || cond_true(*ws, kCondTimeout)) return;
      kube::Object copy = *ws;
      set_cond(copy, kCondTimeout, true, kReasonTimedOut, "timed out: inactivity", sim.now_ms());
      kube::MergePatch patch;
      patch.conditions =
          std::vector<kube::Condition>(copy.conditions.begin(), copy.conditions.end());
      marked = world.api().server_patch(ref, patch, kube::Subresource::kStatus, "ws-manager").ok();
    });
  };
  const Outcome early = run_gitpod_with(scenario, /*keep_going=*/true, setup);
  ASSERT_TRUE(marked) << "alice-1 was not Running at 20 min\n" << early.describe();
  EXPECT_TRUE(early.has("gitpod.S11")) << early.describe();
}

// mk1 finalizer era (monitor.go @ c8c4c3bda92c handleEvent, actOnPodEvent STOPPED →
// modifyFinalizer): a failed finalizer removal is only logged (RetryOnConflict does not retry a
// 500); nothing re-delivers the pod before the informer resync (10 h, controller-runtime
// v0.14.6's default SyncPeriod), so the pod stays Terminating for the rest of the run
// (gitpod.L2). The old port's invented 5-minute resync retried it.
TEST(GitpodFidelity, Mk1FinalizerFailedFinalizerRemovalWaitsForTheResync) {
  const std::string base = R"(
    seed: 5 scripted_only: true fault_phase_ms: 600000 settle_ms: 7200000
    gitpod { manager: "mk1-finalizer" nodes: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )";
  const Outcome clean = run_gitpod(parse_scenario_text(base));
  EXPECT_EQ(clean.verdict, proto::PASS) << clean.describe();
  const std::optional<TimeMs> finalized = first(clean, "ws-manager", "finalize", "alice-1");
  ASSERT_TRUE(finalized.has_value()) << clean.describe();
  // The disposalStatus=finished write is the first ws-manager pod update after the finalize; the
  // next one is the finalizer removal of the STOPPED pod event. Arm one 500 in between.
  const std::optional<TimeMs> finished = first(clean, "ws-manager", "update", "Pod/", *finalized);
  ASSERT_TRUE(finished.has_value()) << clean.describe();
  const std::string error =
      "events { at_ms: " + std::to_string(*finished + 1) +
      " actor: \"api\" action: \"error\" target: \"Pod/ws-alice-1\" args { key: \"verb\" "
      "value: \"update\" } args { key: \"identity\" value: \"ws-manager\" } args { key: "
      "\"times\" value: \"1\" } }";
  const Outcome o = run_gitpod(parse_scenario_text(base + error));
  // The 500 hit the finalizer removal, not the disposalStatus write: an ok pod update after the
  // finalize comes first.
  std::vector<std::string> updates;
  for (const TraceEvent& e : o.trace) {
    if (e.time_ms >= *finalized && e.actor == "ws-manager" && e.verb == "update" &&
        e.object.find("Pod/") != std::string::npos) {
      updates.push_back(e.result);
    }
  }
  ASSERT_GE(updates.size(), 2u) << o.describe();
  EXPECT_EQ(updates[0], "ok") << o.describe();
  EXPECT_EQ(updates[1], "InternalError") << o.describe();
  ASSERT_TRUE(o.violation.has_value()) << o.describe();
  EXPECT_EQ(o.violation->invariant_id, "gitpod.L2") << o.describe();
  EXPECT_NE(o.describe().find("Terminating"), std::string::npos) << o.describe();
}

// Pre-#16622 Reconcile (workspace_controller.go @ a9810d6a0aa7^): an actOnStatus error returns
// at once, without the status write. After a failed pod delete the next ws-manager request is
// therefore the retried delete, not a Workspace status update (the old port wrote the status
// in the same reconcile).
TEST(GitpodFidelity, Pre16622ReturnsBeforeTheStatusWriteWhenActingFails) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 14 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" fixes: ["16997", "17599", "19411", "20243", "20372", "20382"] }
    events { at_ms: 0 actor: "api" action: "error" target: "Pod/ws-alice-1" args { key: "verb" value: "delete" } args { key: "identity" value: "ws-manager" } args { key: "times" value: "1" } }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 90000 actor: "user" action: "stop" target: "alice" }
  )"));
  std::optional<std::string> after_failure;
  bool failed = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor != "ws-manager") continue;
    if (!failed && e.verb == "delete" && e.object.find("Pod/") != std::string::npos &&
        e.result != "ok") {
      failed = true;
      continue;
    }
    if (failed && (e.verb == "delete" || e.verb == "update")) {
      after_failure = e.verb + " " + e.object;
      break;
    }
  }
  ASSERT_TRUE(failed) << o.describe();
  ASSERT_TRUE(after_failure.has_value()) << o.describe();
  EXPECT_EQ(after_failure->rfind("delete Pod/", 0), 0u) << *after_failure << "\n" << o.describe();
}

// mk1 markWorkspace / patchPodLifecycleIndependentState read through mgr.GetClient(), i.e. the
// informer cache (annotations.go @ 724ed7a92a^; cmd/run.go passes mgr.GetClient()). StopWorkspace
// patches the PLIS and the STOPPING pod event patches it again before the cache has seen the
// first write: the second patch conflicts with no injected fault at all (conflicts follow the
// informer lag). With the old direct reads a Conflict here was always an injected fault.
TEST(GitpodFidelity, Mk1PlisPatchConflictsOnTheLaggingCacheAlone) {
  int conflicts = 0;
  for (int seed = 1; seed <= 5; ++seed) {
    const Outcome o = run_gitpod(parse_scenario_text("seed: " + std::to_string(seed) +
                                                     R"( scripted_only: true fault_phase_ms: 600000
        settle_ms: 1800000
        gitpod { manager: "mk1-plis" nodes: 1 }
        events { at_ms: 0 actor: "user" action: "start" target: "alice" }
        events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
        events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
      )"));
    EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
    for (const TraceEvent& e : o.trace) {
      if (e.actor == "ws-manager" && e.verb == "patch-plis" && e.result == "Conflict") ++conflicts;
      EXPECT_EQ(e.detail.find("fault kube.api.conflict"), std::string::npos) << o.describe();
    }
  }
  EXPECT_GT(conflicts, 0);
}

// ws-daemon Workspace.Dispose (pkg/internal/session/workspace.go @ 4f45d02eac95 :106-136) removes
// the session's state file (:113) before the content (:130), and after a restart
// WorkspaceProvider.GetAndConnect (workspace_provider.go :67-80) loads a session only from that
// file. #16997+ with N4 (the BackupComplete write fails, the content is deleted anyway) and a crash
// in the middle of that delete: the restarted ws-daemon's BackupWorkspace finds no session and
// BackupFailure is written over the good backup; nothing is uploaded again. The old port kept the
// session and uploaded the half-deleted content over the good backup (gitpod.no_silent_loss).
TEST(GitpodFidelity, DaemonCrashMidDeleteFindsNoSessionAfterTheRestart) {
  const Outcome clean = run_gitpod(parse_scenario_text(backup_scenario("")));
  const std::optional<TimeMs> backup = first(clean, kDaemon, "backup", "alice-1");
  ASSERT_TRUE(backup.has_value()) << clean.describe();
  std::optional<TimeMs> refresh;
  for (const TraceEvent& e : clean.trace) {
    if (e.time_ms < *backup - 900 && e.actor == kDaemon && e.verb == "update") refresh = e.time_ms;
  }
  ASSERT_TRUE(refresh.has_value()) << clean.describe();
  const std::string crash =
      "events { at_ms: " + std::to_string(*refresh + 1) +
      " actor: \"ws-daemon\" action: \"crash_during_delete\" target: \"all\" args { key: "
      "\"restart_after_ms\" value: \"5000\" } }";
  const Outcome o = run_gitpod(
      parse_scenario_text(backup_scenario(daemon_update_fault(*refresh + 1, "error", 1) + crash)),
      /*keep_going=*/true);
  EXPECT_TRUE(traced(o, kDaemon, "backup-condition", "failed")) << o.describe();
  EXPECT_TRUE(traced(o, kDaemon, "crash", "ok")) << o.describe();
  bool crashed = false;
  bool no_session = false;
  int uploads_after_crash = 0;
  for (const TraceEvent& e : o.trace) {
    if (e.actor != kDaemon) continue;
    if (e.verb == "crash") crashed = true;
    if (crashed && e.verb == "backup" && e.detail == "no session") no_session = true;
    if (crashed && e.verb == "backup" && e.result == "ok") ++uploads_after_crash;
  }
  EXPECT_TRUE(no_session) << o.describe();
  EXPECT_EQ(uploads_after_crash, 0) << o.describe();
  EXPECT_FALSE(o.has("gitpod.no_silent_loss")) << o.describe();
  EXPECT_NE(o.state.find("backup=v1"), std::string::npos) << o.describe();
  EXPECT_EQ(o.state.find("partial"), std::string::npos) << o.describe();
}

// Before #16997, DisposeWorkspace (ws-daemon pkg/controller/workspace_operations.go @
// 2cfe264c1236^ :174-220) returns the upload's error (:192-194) before ws.Dispose (:210): a failed
// final backup keeps the local content (the reconcile then writes BackupFailure). The old port
// deleted the only copy whatever the upload said (gitpod.S2 and a loss).
TEST(GitpodFidelity, Pre16997FailedUploadKeepsTheLocalContent) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 21 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod {
      manager: "mk2" nodes: 1
      fixes: ["16622", "17599", "19411", "20243", "20372", "20382"]
    }
    faults { name: "gitpod.daemon.backup_failure" enabled: true fire_num: 1 fire_den: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )"),
                               /*keep_going=*/true);
  EXPECT_TRUE(traced(o, kDaemon, "backup", "failed")) << o.describe();
  EXPECT_FALSE(traced(o, kDaemon, "delete-content", "ok")) << o.describe();
  EXPECT_FALSE(o.has("gitpod.S2")) << o.describe();
  EXPECT_NE(o.state.find("BackupFailure"), std::string::npos) << o.describe();
}

// mk1 DisposeWorkspace (ws-daemon pkg/content/service.go @ 724ed7a92a^ :332-416) uploads with the
// RPC's context (:379): a ws-manager restart cancels it, DataLoss goes to nobody, nothing is
// deleted, and the session stays "disposing" (WaitOrMarkForDisposal persisted it, session/
// workspace.go :164-197). The restarted ws-manager's DisposeWorkspace(backup) is refused with
// FailedPrecondition "workspace content was never ready" (:350), which finalizeWorkspaceContent
// records as the final backup's failure. The old port ran the disposal to its end whatever the
// caller did, and the second call waited for it and answered done.
TEST(GitpodFidelity, Mk1DisposeWorkspaceIsCancelledWithItsCaller) {
  const std::string base = R"(
    seed: 1 scripted_only: true fault_phase_ms: 600000 settle_ms: 3600000
    gitpod { manager: "mk1-plis" nodes: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )";
  const Outcome clean = run_gitpod(parse_scenario_text(base));
  EXPECT_EQ(clean.verdict, proto::PASS) << clean.describe();
  const std::optional<TimeMs> backup = first(clean, kDaemon, "backup", "alice-1");
  ASSERT_TRUE(backup.has_value()) << clean.describe();
  // Every upload takes at least 1 s: 500 ms before it ends, it is running.
  const std::string restart = "events { at_ms: " + std::to_string(*backup - 500) +
                              " actor: \"manager\" action: \"restart\" }";
  const Outcome o = run_gitpod(parse_scenario_text(base + restart), /*keep_going=*/true);
  bool cancelled = false;
  bool refused = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor == kDaemon && e.verb == "backup" && e.detail == "context canceled") {
      cancelled = true;
    }
    if (e.actor == "ws-manager" && e.verb == "finalize" &&
        e.detail.find("FailedPrecondition") != std::string::npos) {
      refused = true;
    }
  }
  EXPECT_TRUE(cancelled) << o.describe();
  EXPECT_TRUE(refused) << o.describe();
  EXPECT_FALSE(traced(o, kDaemon, "delete-content", "ok")) << o.describe();
}

// Before #16823 (c64c4f3530, the model's mk2 versions without #16622) mk2's InitWorkspaceContent
// went through mk1's session store: Store.NewWorkspace answered ErrAlreadyExists for a known
// session and handleWorkspaceInit returned without writing ContentReady
// (workspace_operations.go / workspace_controller.go @ c64c4f3530^ :96-98, :165-167). Since then
// the same restart re-initialises from a clean slate (N10, the corpus file's mk2 verdict).
TEST(GitpodFidelity, Pre16823ContentInitOfAKnownSessionReturnsWithoutContentReady) {
  const std::string path =
      std::string(WSIM_SOURCE_DIR) + "/corpus/regressions/gitpod/daemon-crash-after-init.textproto";
  proto::Scenario s = load_scenario(path);
  s.mutable_gitpod()->clear_fixes();
  s.mutable_gitpod()->add_fixes("none");
  const Outcome o = run_gitpod(s);
  EXPECT_FALSE(o.has("gitpod.no_silent_loss")) << o.describe();
  bool already = false;
  for (const TraceEvent& e : o.trace) {
    if (e.actor == kDaemon && e.verb == "init" &&
        e.detail.find("already initialized, version 0") != std::string::npos) {
      already = true;
    }
  }
  EXPECT_TRUE(already) << o.describe();
  EXPECT_EQ(o.state.find("ContentReady=True"), std::string::npos) << o.describe();
}

// U1 (docs/fidelity.md): the Gitpod server answers a start with the current instance, and starts
// nothing, unless that instance's phase — as ws-manager last reported it to the server — is
// "stopped": components/server/src/workspace/workspace-service.ts @ 4f45d02eac95 startWorkspace
// :822-831 and :840-846 (gitpod-db typeorm/workspace-db-impl.ts findRunningInstance :138-144);
// the PLIS era the same (gitpod-server-impl.ts @ 724ed7a92a^ startWorkspace :402-413, gitpod-db
// workspace-db.ts findRunningInstance :159-165). A start one second after a stop finds alice-1
// stopping: no alice-2. A start once alice-1 is stopped makes alice-2. Before issue #30 the port
// started alice-2 at the first start, while alice-1 was still stopping.
TEST(GitpodFidelity, U1NoStartWhileTheServerSeesTheCurrentInstanceNotStopped) {
  for (const char* manager : {"mk2", "mk1-plis", "mk1-finalizer"}) {
    SCOPED_TRACE(manager);
    proto::Scenario s = parse_scenario_text(backup_scenario(R"(
      events { at_ms: 121000 actor: "user" action: "start" target: "alice" }
      events { at_ms: 900000 actor: "user" action: "start" target: "alice" }
    )"));
    s.mutable_gitpod()->set_manager(manager);
    const Outcome o = run_gitpod(s);
    EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
    bool answered_current = false;
    for (const TraceEvent& e : o.trace) {
      if (e.actor == "server" && e.verb == "start" && e.result == "current" &&
          e.time_ms == 121000) {
        answered_current = e.detail == "current instance alice-1 not stopped (stopping)";
      }
    }
    EXPECT_TRUE(answered_current) << o.describe();
    const std::optional<TimeMs> second = first(o, "user/alice", "start-reply", "alice-2");
    ASSERT_TRUE(second.has_value()) << o.describe();
    EXPECT_GE(*second, 900000) << o.describe();
    EXPECT_FALSE(first(o, "user/alice", "start-reply", "alice-3").has_value()) << o.describe();
  }
}

// U1, the other side: a start ws-manager refuses ends the server's instance (workspace-starter.ts
// @ 4f45d02eac95 failInstanceStart :887-903 stores it "stopped"), so the next start makes a new
// instance; and the server's record follows ws-manager's stream, not the cluster: alice-2 runs, and
// a start while it runs is answered with it.
TEST(GitpodFidelity, U1ARefusedStartEndsTheInstanceAndTheRecordFollowsTheStream) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 21 scripted_only: true fault_phase_ms: 600000 settle_ms: 1800000
    gitpod { manager: "mk2" nodes: 1 }
    events { at_ms: 0 actor: "manager" action: "down" target: "" }
    events { at_ms: 1000 actor: "user" action: "start" target: "alice" }
    events { at_ms: 5000 actor: "manager" action: "up" target: "" }
    events { at_ms: 10000 actor: "user" action: "start" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "start" target: "alice" }
  )"));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  bool refused = false;
  bool second_ok = false;
  bool answered_running = false;
  for (const TraceEvent& e : o.trace) {
    if (e.verb == "start-reply" && e.object == "alice-1" && e.result != "OK") refused = true;
    if (e.verb == "start-reply" && e.object == "alice-2" && e.result == "OK") second_ok = true;
    if (e.actor == "server" && e.verb == "start" && e.time_ms == 120000) {
      answered_running = e.detail == "current instance alice-2 not stopped (running)";
    }
  }
  EXPECT_TRUE(refused) << o.describe();
  EXPECT_TRUE(second_ok) << o.describe();
  EXPECT_TRUE(answered_running) << o.describe();
  EXPECT_FALSE(first(o, "user/alice", "start-reply", "alice-3").has_value()) << o.describe();
}

}  // namespace
}  // namespace wsim::gitpod::testing
