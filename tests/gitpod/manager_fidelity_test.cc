// Fidelity of the ws-manager ports (mk1 in its three versions, mk2) to upstream gitpod-io/gitpod
// (issue #30; docs/fidelity.md G16, G18, M1, M2, M6, M10, M12–M15): each test states the upstream
// rule it pins, at the commit and function, and fails on the port as it was before.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/gitpod/mk1/manager.h"
#include "model/gitpod/names.h"
#include "tests/gitpod/scenario_runner.h"

namespace wsim::gitpod::testing {
namespace {

// One user starts, writes, stops; one node.
std::string stop_scenario(const std::string& manager) {
  return R"(
    seed: 7 scripted_only: true fault_phase_ms: 600000 settle_ms: 7200000
    gitpod { manager: ")" +
         manager + R"(" nodes: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 60000 actor: "user" action: "write" target: "alice" }
    events { at_ms: 120000 actor: "user" action: "stop" target: "alice" }
  )";
}

bool is(const TraceEvent& e, const std::string& actor, const std::string& verb,
        const std::string& object) {
  return e.actor == actor && e.verb == verb && e.object.find(object) != std::string::npos;
}

std::optional<TimeMs> first(const Outcome& o, const std::string& actor, const std::string& verb,
                            const std::string& object, TimeMs after_ms = 0) {
  for (const TraceEvent& e : o.trace) {
    if (e.time_ms >= after_ms && is(e, actor, verb, object)) return e.time_ms;
  }
  return std::nullopt;
}

// The times of ws-manager's Event Lists (completeWorkspaceObjects' Events().Search).
std::vector<TimeMs> event_lists(const Outcome& o) {
  std::vector<TimeMs> out;
  for (const TraceEvent& e : o.trace) {
    if (is(e, "ws-manager", "list", "Event/")) out.push_back(e.time_ms);
  }
  return out;
}

// status.go completeWorkspaceObjects (@ 08774bd177^ :249, @ 724ed7a92a^ :251) lists the pod's
// Events through the uncached client on every pod event, and monitor.go onPodEvent returns that
// error before any status or action (handleEvent only logs it; the event pool never retries).
// One failed List on the pod's Deleted event therefore loses the only event whose STOPPING
// handling patches the PLIS with Deployed=false: no ConfigMap event follows, nothing finalizes,
// and 60 minutes later the dangling-PLIS GC deletes the PLIS — the content on the node is
// orphaned without a backup. The port had no read there and never dropped an event.
void expect_one_failed_event_list_orphans_the_content(const std::string& manager) {
  const std::string base = stop_scenario(manager);
  const Outcome clean = run_gitpod(parse_scenario_text(base));
  ASSERT_EQ(clean.verdict, proto::PASS) << clean.describe();
  const std::optional<TimeMs> deleted = first(clean, "ws-manager", "delete-pod", "alice-1");
  ASSERT_TRUE(deleted.has_value()) << clean.describe();
  // The Deleted event's PLIS patch is the first PLIS update after the pod's deletion; its Event
  // List is the last one before it. Arm one failure of the next Event List just after the List
  // before that one.
  const std::optional<TimeMs> patch =
      first(clean, "ws-manager", "update", "ConfigMap/gitpod/plis-alice-1", *deleted);
  ASSERT_TRUE(patch.has_value()) << clean.describe();
  std::vector<TimeMs> before;
  for (TimeMs t : event_lists(clean)) {
    if (t < *patch) before.push_back(t);
  }
  ASSERT_GE(before.size(), 2u) << clean.describe();
  const TimeMs arm_ms = before[before.size() - 2] + 1;
  ASSERT_LT(arm_ms, before.back());
  const std::string fault = "events { at_ms: " + std::to_string(arm_ms) +
                            " actor: \"api\" action: \"error\" target: \"Event/\" args { key: "
                            "\"verb\" value: \"list\" } args { key: \"identity\" value: "
                            "\"ws-manager\" } args { key: \"times\" value: \"1\" } }";
  const Outcome o = run_gitpod(parse_scenario_text(base + fault));
  EXPECT_TRUE(first(o, "ws-manager", "drop-event", "alice-1").has_value()) << o.describe();
  EXPECT_FALSE(first(o, "ws-manager", "update", "ConfigMap/gitpod/plis-alice-1", *deleted))
      << o.describe();
  EXPECT_FALSE(first(o, "ws-manager", "finalize", "alice-1").has_value()) << o.describe();
  ASSERT_TRUE(o.violation.has_value()) << o.describe();
  EXPECT_EQ(o.violation->invariant_id, "gitpod.no_silent_loss") << o.describe();
  EXPECT_NE(o.describe().find("orphaned"), std::string::npos) << o.describe();
}

TEST(ManagerFidelity, Mk1PlisOneFailedEventListOnTheDeletedEventOrphansTheContent) {
  expect_one_failed_event_list_orphans_the_content("mk1-plis");
}

TEST(ManagerFidelity, Mk1PlisDirectOneFailedEventListOnTheDeletedEventOrphansTheContent) {
  expect_one_failed_event_list_orphans_the_content("mk1-plis-direct");
}

// The finalizer era lists the Events too (status.go @ c8c4c3bda92c :177): one pod event, one
// Event List.
TEST(ManagerFidelity, Mk1FinalizerListsTheEventsOnEveryPodEvent) {
  const Outcome o = run_gitpod(parse_scenario_text(stop_scenario("mk1-finalizer")));
  EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
  EXPECT_GE(event_lists(o).size(), 4u) << o.describe();
}

// Before 08774bd177 (annotations.go @ 08774bd177^ markWorkspace /
// patchPodLifecycleIndependentState, the form of seed 004) m.Clientset is a kubernetes.Interface:
// both read the API server, not a cache. The PLIS patch of StopWorkspace therefore Gets the
// ConfigMap from the server, and the patches never conflict on informer lag alone (compare
// GitpodFidelity.Mk1PlisPatchConflictsOnTheLaggingCacheAlone for the cached three weeks).
TEST(ManagerFidelity, Mk1PlisDirectReadsTheApiServerAndNeverConflictsOnLag) {
  int conflicts = 0;
  for (int seed = 1; seed <= 5; ++seed) {
    std::string text = stop_scenario("mk1-plis-direct");
    text.replace(text.find("seed: 7"), 7, "seed: " + std::to_string(seed));
    const Outcome o = run_gitpod(parse_scenario_text(text));
    EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
    EXPECT_TRUE(first(o, "ws-manager", "get", "ConfigMap/gitpod/plis-alice-1").has_value())
        << o.describe();
    EXPECT_TRUE(first(o, "ws-manager", "get", "Pod/gitpod/ws-alice-1").has_value()) << o.describe();
    for (const TraceEvent& e : o.trace) {
      if (e.actor == "ws-manager" && e.result == "Conflict") ++conflicts;
    }
  }
  EXPECT_EQ(conflicts, 0);
  // The cached version reads neither from the server.
  const Outcome cached = run_gitpod(parse_scenario_text(stop_scenario("mk1-plis")));
  EXPECT_FALSE(first(cached, "ws-manager", "get", "ConfigMap/gitpod/plis-alice-1").has_value())
      << cached.describe();
}

// markWorkspace (annotations.go @ 08774bd177^ :112, @ 724ed7a92a^ :104, @ c8c4c3bda92c :134)
// sends its Update whatever annotation.Apply found, and actOnPodEvent marks the pod on every
// RUNNING event (PLIS era: deleteMark(TraceIDAnnotation); finalizer era:
// addMark(nodeNameAnnotation)). After the first such mark changed the pod, later RUNNING events
// send Updates that change nothing: the API server answers with the same resourceVersion. The
// port skipped them.
TEST(ManagerFidelity, Mk1MarksThePodOnEveryRunningEventEvenWithoutAChange) {
  for (const std::string manager : {"mk1-plis-direct", "mk1-plis", "mk1-finalizer"}) {
    const Outcome o = run_gitpod(parse_scenario_text(stop_scenario(manager)));
    EXPECT_EQ(o.verdict, proto::PASS) << o.describe();
    int unchanged = 0;
    std::string last_rv;
    for (const TraceEvent& e : o.trace) {
      if (!is(e, "ws-manager", "update", "Pod/gitpod/ws-alice-1") || e.result != "ok") continue;
      if (e.detail == last_rv) ++unchanged;
      last_rv = e.detail;
    }
    EXPECT_GE(unchanged, 1) << manager << "\n" << o.describe();
  }
}

// MarkActive (ws-manager-mk2 service/manager.go @ 4f45d02eac95 :524-530): a failed
// modifyWorkspace(LastActivity) is only logged ("was unable to update status") and the RPC
// answers OK. The activity is lost although the user was told it counted: the timeout
// controller times the workspace out from the earlier activity, 15 minutes after an answered
// MarkActive (gitpod.S11). The port failed the RPC.
TEST(ManagerFidelity, Mk2MarkActiveAnswersOkWhenItsLastActivityWriteFails) {
  const Outcome o = run_gitpod(parse_scenario_text(R"(
    seed: 3 scripted_only: true fault_phase_ms: 3600000 settle_ms: 1800000
    gitpod { manager: "mk2" nodes: 1 }
    events { at_ms: 0 actor: "user" action: "start" target: "alice" }
    events { at_ms: 300000 actor: "user" action: "mark_active" target: "alice" }
    events { at_ms: 1200000 actor: "api" action: "error" target: "Workspace/alice-1"
             args { key: "verb" value: "update" } args { key: "identity" value: "ws-manager" }
             args { key: "times" value: "1" } }
    events { at_ms: 1200000 actor: "user" action: "mark_active" target: "alice" }
  )"),
                               /*keep_going=*/true);
  EXPECT_TRUE(first(o, "ws-manager", "mark-active", "alice-1").has_value()) << o.describe();
  const std::optional<TimeMs> timed_out = first(o, "ws-manager", "timeout", "alice-1");
  ASSERT_TRUE(timed_out.has_value()) << o.describe();
  EXPECT_GE(*timed_out, 300000 + 1800000) << o.describe();
  EXPECT_LT(*timed_out, 1200000 + 1800000) << o.describe();
  EXPECT_TRUE(o.has("gitpod.S11")) << o.describe();
}

// isWorkspaceTimedOut (status.go @ 724ed7a92a^ :772, @ c8c4c3bda92c :782): a PENDING workspace
// times out after Timeouts.Initialization (30 min in the chart @ 724ed7a92a^), not after the
// startup timeout (60 min) the port used. The only node is cordoned, so the pod stays Pending; the
// monitor marks it timed out and deletes it at 30 min plus one housekeeping round.
TEST(ManagerFidelity, Mk1PendingWorkspaceTimesOutAfterTheInitializationTimeout) {
  for (const std::string manager : {"mk1-plis-direct", "mk1-plis", "mk1-finalizer"}) {
    const Outcome o = run_gitpod(parse_scenario_text(R"(
      seed: 2 scripted_only: true fault_phase_ms: 5400000 settle_ms: 1800000
      gitpod { manager: ")" + manager + R"(" nodes: 1 }
      events { at_ms: 0 actor: "kubectl" action: "cordon" target: "node-1" }
      events { at_ms: 1000 actor: "user" action: "start" target: "alice" }
    )"),
                                 /*keep_going=*/true);
    const std::optional<TimeMs> deleted = first(o, "ws-manager", "delete-pod", "alice-1");
    ASSERT_TRUE(deleted.has_value()) << manager << "\n" << o.describe();
    EXPECT_GE(*deleted, 1000 + 30 * kMinuteMs) << manager << "\n" << o.describe();
    EXPECT_LT(*deleted, 1000 + 31 * kMinuteMs) << manager << "\n" << o.describe();
  }
}

// status.go (@ c8c4c3bda92c :515-531, @ 724ed7a92a^ :554-578): a running regular workspace is
// RUNNING only once monitor's probe removed gitpod/never-ready; a kubelet-ready pod with the mark
// is INITIALIZING (docs/fidelity.md M11). The port reported RUNNING for any ready pod.
TEST(ManagerFidelity, Mk1ReportsInitializingUntilNeverReadyIsRemoved) {
  kube::Object p;
  p.kind = "Pod";
  p.meta.name = "ws-w1";
  p.meta.namespace_ = kNamespace;
  p.spec["nodeName"] = "node-1";
  p.status["phase"] = "Running";
  p.status["ready"] = "true";
  p.meta.annotations[kAnnNeverReady] = "true";
  p.meta.annotations[kAnnAlreadyInitializing] = "true";
  for (const bool finalizer_era : {false, true}) {
    EXPECT_EQ(mk1::status_from_pod(p, finalizer_era).phase, mk1::Phase::kInitializing)
        << finalizer_era;
  }
  p.meta.annotations.erase(kAnnNeverReady);
  for (const bool finalizer_era : {false, true}) {
    EXPECT_EQ(mk1::status_from_pod(p, finalizer_era).phase, mk1::Phase::kRunning) << finalizer_era;
  }
}

// The user reaches the IDE only once the instance is "running" (supervisor frontend index.ts
// @ 724ed7a92a^ :73-93), i.e. once ws-manager removed gitpod/never-ready. With every ws-manager
// Update of the pod throttled after its alreadyInitializing mark, the mark is never removed
// (waitForWorkspaceReady's markWorkspace gives up, monitor.go @ c8c4c3bda92c :714-717): the
// user's write cannot land and nothing is lost. The port let the user write to the kubelet-ready
// pod and then skipped the backup of a never-ready workspace (a silent loss).
TEST(ManagerFidelity, Mk1UserCannotWriteBeforeNeverReadyIsRemoved) {
  for (const std::string manager : {"mk1-plis-direct", "mk1-plis", "mk1-finalizer"}) {
    const std::string base = stop_scenario(manager);
    const Outcome clean = run_gitpod(parse_scenario_text(base));
    ASSERT_EQ(clean.verdict, proto::PASS) << manager << "\n" << clean.describe();
    const std::optional<TimeMs> mark =
        first(clean, "ws-manager", "update", "Pod/gitpod/ws-alice-1");
    ASSERT_TRUE(mark.has_value()) << manager << "\n" << clean.describe();
    const std::string fault = "events { at_ms: " + std::to_string(*mark + 1) +
                              " actor: \"api\" action: \"error\" target: \"Pod/ws-alice-1\" "
                              "args { key: \"verb\" value: \"update\" } args { key: "
                              "\"identity\" value: \"ws-manager\" } args { key: \"times\" "
                              "value: \"1000\" } args { key: \"as\" value: \"429\" } }";
    const Outcome o = run_gitpod(parse_scenario_text(base + fault));
    bool wrote = false;
    for (const TraceEvent& e : o.trace) {
      if (e.actor == "user/alice" && e.verb == "write" && e.result == "ok") wrote = true;
    }
    EXPECT_FALSE(wrote) << manager << "\n" << o.describe();
    EXPECT_NE(o.verdict, proto::SAFETY_VIOLATION) << manager << "\n" << o.describe();
  }
}

}  // namespace
}  // namespace wsim::gitpod::testing
