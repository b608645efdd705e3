// mk2 status derivation and actOnStatus decisions (docs/systems/gitpod.md §3.2–§3.5, §6.3).
#include "model/gitpod/mk2/status.h"

#include <gtest/gtest.h>

#include "model/gitpod/conditions.h"
#include "model/gitpod/mk2/actions.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"

namespace wsim::gitpod::mk2 {
namespace {

kube::Object workspace(const std::string& phase_value) {
  kube::Object ws;
  ws.kind = kWorkspaceKind;
  ws.meta.name = "w1";
  ws.meta.namespace_ = kNamespace;
  ws.spec[kSpecType] = "Regular";
  if (!phase_value.empty()) set_phase(ws, phase_value);
  return ws;
}

kube::Object pod(const std::string& pod_phase) {
  kube::Object p;
  p.kind = "Pod";
  p.meta.name = "ws-w1";
  p.meta.namespace_ = kNamespace;
  p.spec["nodeName"] = "node-1";
  p.status["phase"] = pod_phase;
  return p;
}

kube::Object rejected_pod() {
  kube::Object p = pod("Failed");
  p.status["reason"] = "NodeAffinity";
  p.status["message"] = "Pod was rejected: Predicate NodeAffinity failed";
  return p;
}

StatusInputs inputs(const Versions& versions, TimeMs now_ms = 1000) {
  StatusInputs in;
  in.versions = &versions;
  in.now_ms = now_ms;
  return in;
}

TEST(Mk2Status, EmptyPhaseBecomesPendingWithoutPods) {
  Versions v;
  kube::Object ws = workspace("");
  update_workspace_status(ws, {}, inputs(v));
  EXPECT_EQ(phase(ws), kPhasePending);
}

TEST(Mk2Status, RejectedPodSetsPodRejectedAndFailedAndUnknown) {
  Versions v;
  kube::Object ws = workspace(kPhaseCreating);
  update_workspace_status(ws, {rejected_pod()}, inputs(v));
  EXPECT_TRUE(cond_true(ws, kCondPodRejected));
  EXPECT_TRUE(cond_true(ws, kCondFailed));
  EXPECT_EQ(phase(ws), kPhaseUnknown);
}

TEST(Mk2Status, Pre20243RejectionIsOnlyAFailure) {
  Versions v;
  v.fixes &= ~static_cast<std::uint32_t>(Fix::k20243);
  kube::Object ws = workspace(kPhaseCreating);
  update_workspace_status(ws, {rejected_pod()}, inputs(v));
  EXPECT_FALSE(cond_present(ws, kCondPodRejected));
  EXPECT_TRUE(cond_true(ws, kCondFailed));
}

TEST(Mk2Status, EverReadyBlocksPodRejectedOnlyWith20372) {
  Versions with;
  Versions without;
  without.fixes &= ~static_cast<std::uint32_t>(Fix::k20372);
  for (const Versions* v : {&with, &without}) {
    kube::Object ws = workspace(kPhaseRunning);
    set_cond(ws, kCondEverReady, true, "", "", 10);
    set_cond(ws, kCondContentReady, true, kReasonInitSuccess, "", 10);
    update_workspace_status(ws, {rejected_pod()}, inputs(*v));
    EXPECT_EQ(cond_true(ws, kCondPodRejected), v == &without);
  }
}

TEST(Mk2Status, DisposalOfRejectedWorkspaceNeedsStateWiped) {
  Versions v;
  kube::Object ws = workspace(kPhaseStopping);
  set_cond(ws, kCondPodRejected, true, "", "", 1);
  set_cond(ws, kCondBackupComplete, true, "", "", 1);
  EXPECT_FALSE(is_disposal_finished(ws, v));
  set_cond(ws, kCondStateWiped, false, "", "wipe failed", 2);
  EXPECT_TRUE(is_disposal_finished(ws, v));  // B10: presence counts.
}

TEST(Mk2Status, NeverReadyContentCountsAsDisposed) {
  Versions v;
  kube::Object ws = workspace(kPhaseStopping);
  EXPECT_TRUE(is_disposal_finished(ws, v));
  set_cond(ws, kCondContentReady, true, kReasonInitSuccess, "", 1);
  EXPECT_FALSE(is_disposal_finished(ws, v));
}

TEST(Mk2Status, DeletingPodGoesStoppingThenStopped) {
  Versions v;
  kube::Object ws = workspace(kPhaseRunning);
  set_cond(ws, kCondContentReady, true, kReasonInitSuccess, "", 1);
  kube::Object p = pod("Running");
  p.meta.deletion_ms = 500;
  update_workspace_status(ws, {p}, inputs(v, 1000));
  EXPECT_EQ(phase(ws), kPhaseStopping);
  EXPECT_EQ(status_time(ws, kStatusPodStoppingMs), std::optional<TimeMs>(1000));
  update_workspace_status(ws, {p}, inputs(v, 2000));
  EXPECT_EQ(phase(ws), kPhaseStopping);  // Backup not done.
  set_cond(ws, kCondBackupComplete, true, "", "", 2500);
  update_workspace_status(ws, {p}, inputs(v, 3000));
  EXPECT_EQ(phase(ws), kPhaseStopped);
}

TEST(Mk2Status, NodeMissingSetsBackupFailureOnlyWith17599) {
  Versions v;
  kube::Object ws = workspace(kPhaseRunning);
  set_cond(ws, kCondContentReady, true, kReasonInitSuccess, "", 1);
  set_cond(ws, kCondEverReady, true, "", "", 1);
  StatusInputs in = inputs(v);
  in.node_missing = true;
  update_workspace_status(ws, {pod("Running")}, in);
  EXPECT_TRUE(cond_true(ws, kCondBackupFailure));
  EXPECT_TRUE(cond_true(ws, kCondNodeDisappeared));
  EXPECT_TRUE(cond_true(ws, kCondFailed));  // "Backup failed: ..."

  Versions old;
  old.fixes &= ~static_cast<std::uint32_t>(Fix::k17599);
  kube::Object ws2 = workspace(kPhaseRunning);
  update_workspace_status(ws2, {pod("Running")}, [&] {
    StatusInputs in2 = inputs(old);
    in2.node_missing = true;
    return in2;
  }());
  EXPECT_FALSE(cond_present(ws2, kCondNodeDisappeared));
}

TEST(Mk2Status, RunningNeedsContentReadyAndContainerReady) {
  Versions v;
  kube::Object ws = workspace(kPhaseCreating);
  kube::Object p = pod("Running");
  p.status["container.state"] = "running";
  p.status["ready"] = "true";
  update_workspace_status(ws, {p}, inputs(v));
  EXPECT_EQ(phase(ws), kPhaseInitializing);
  set_cond(ws, kCondContentReady, true, kReasonInitSuccess, "", 1);
  update_workspace_status(ws, {p}, inputs(v));
  EXPECT_EQ(phase(ws), kPhaseRunning);
  EXPECT_TRUE(cond_true(ws, kCondEverReady));
  EXPECT_TRUE(cond_true(ws, kCondContainerRunning));
}

// container_running reads only the container state (docs/performance.md §12): it agrees with the
// whole view for every state the fake kubelet writes, and for none.
TEST(PodView, ContainerRunningAgreesWithTheContainerView) {
  for (const char* state : {"", "waiting", "running", "terminated", "Running"}) {
    kube::Object p = pod("Running");
    if (*state != '\0') p.status["container.state"] = state;
    p.status["container.exitCode"] = "3";
    p.status["container.message"] = "a message longer than the small-string buffer";
    p.status["ready"] = "true";
    const ContainerView view = workspace_container(p);
    EXPECT_EQ(container_running(p), view.state == ContainerState::kRunning) << state;
    EXPECT_EQ(view.exit_code, 3);
    EXPECT_EQ(view.message, "a message longer than the small-string buffer");
    EXPECT_TRUE(view.ready);
  }
  EXPECT_TRUE(container_running([] {
    kube::Object p = pod("Running");
    p.status["container.state"] = "running";
    return p;
  }()));
}

// status_time looks its key up once; absent is nullopt, a number is its value.
TEST(Conditions, StatusTimeAndIntReadTheirKey) {
  kube::Object ws = workspace("Running");
  EXPECT_EQ(status_time(ws, kStatusLastActivityMs), std::nullopt);
  set_status_time(ws, kStatusLastActivityMs, 4200);
  EXPECT_EQ(status_time(ws, kStatusLastActivityMs), std::optional<TimeMs>(4200));
  EXPECT_EQ(status_int(ws, kStatusLastActivityMs, -1), 4200);
  ws.status["custom"] = "12x";
  EXPECT_EQ(status_int(ws, "custom", -7), -7);  // Not all of it a number: the fallback.
  EXPECT_EQ(status_int(ws, "absent", -8), -8);
}

// docs/performance.md §13.1: workspace_container_state is the view's state; set_phase and
// set_status_int of the value already there write nothing (a copy's status map stays shared).
TEST(PodView, ContainerStateIsTheViewsState) {
  for (const char* state : {"", "waiting", "running", "terminated", "other"}) {
    kube::Object p = pod("Running");
    if (*state != '\0') p.status["container.state"] = state;
    EXPECT_EQ(workspace_container_state(p), workspace_container(p).state) << state;
  }
}

TEST(Conditions, SameValueWritesNothing) {
  const kube::Object original = [] {
    kube::Object ws = workspace("Running");
    set_status_int(ws, kStatusPodStarts, 2);
    return ws;
  }();
  kube::Object copy = original;
  set_phase(copy, kPhaseRunning);
  set_status_int(copy, kStatusPodStarts, 2);
  EXPECT_EQ(&copy.status.map(), &original.status.map()) << "still shared: nothing was written";
  set_phase(copy, kPhaseStopping);
  EXPECT_NE(&copy.status.map(), &original.status.map());
  EXPECT_EQ(phase(copy), kPhaseStopping);
  EXPECT_EQ(phase(original), kPhaseRunning);
  set_status_int(copy, kStatusPodStarts, 3);
  EXPECT_EQ(status_int(copy, kStatusPodStarts, 0), 3);
  EXPECT_EQ(status_int(original, kStatusPodStarts, 0), 2);
}

TEST(Mk2Actions, CreatesPodWhenNoneStarted) {
  Versions v;
  ActionInputs in{&v, 0, 3, 0};
  EXPECT_EQ(decide_action(workspace(kPhasePending), {}, in).kind, ActionKind::kCreatePod);
}

TEST(Mk2Actions, RecreationWaitsForBackoffThenResets) {
  Versions v;
  ActionInputs in{&v, 10'000, 3, 0};
  kube::Object ws = workspace(kPhaseStopped);
  set_status_int(ws, kStatusPodStarts, 1);
  set_cond(ws, kCondPodRejected, true, "", "", 1);
  EXPECT_EQ(decide_action(ws, {}, in).kind, ActionKind::kRequeueAfter);  // No podDeletionTime.
  set_status_time(ws, kStatusPodDeletionMs, 5'000);
  Action wait = decide_action(ws, {}, in);
  EXPECT_EQ(wait.kind, ActionKind::kRequeueAfter);
  EXPECT_EQ(wait.requeue_after_ms, 10'000);
  in.now_ms = 20'000;
  EXPECT_EQ(decide_action(ws, {}, in).kind, ActionKind::kResetForRecreation);
  reset_for_recreation(ws, in.now_ms);
  EXPECT_EQ(phase(ws), kPhasePending);
  EXPECT_EQ(status_int(ws, kStatusPodRecreated, 0), 1);
  EXPECT_TRUE(cond_false(ws, kCondPodRejected));
  EXPECT_EQ(decide_action(ws, {}, in).kind, ActionKind::kCreatePod);
}

TEST(Mk2Actions, RecreationLimitIsStrictGreater) {
  Versions v;
  ActionInputs in{&v, 100'000, 0, 0};
  kube::Object ws = workspace(kPhaseStopped);
  set_status_int(ws, kStatusPodStarts, 1);
  set_status_time(ws, kStatusPodDeletionMs, 1);
  set_cond(ws, kCondPodRejected, true, "", "", 1);
  EXPECT_EQ(decide_action(ws, {}, in).kind, ActionKind::kResetForRecreation);  // max=0: 1 allowed
  set_status_int(ws, kStatusPodStarts, 2);
  set_status_int(ws, kStatusPodRecreated, 1);
  EXPECT_EQ(decide_action(ws, {}, in).kind, ActionKind::kRecreationLimit);
}

TEST(Mk2Actions, StoppedWithoutRejectionFinalizes) {
  Versions v;
  ActionInputs in{&v, 0, 3, 0};
  kube::Object ws = workspace(kPhaseStopped);
  set_status_int(ws, kStatusPodStarts, 1);
  EXPECT_EQ(decide_action(ws, {}, in).kind, ActionKind::kFinalizeWorkspace);
}

TEST(Mk2Actions, StopRequestDeletesPodWithGrace) {
  Versions v;
  ActionInputs in{&v, 0, 3, 0};
  kube::Object ws = workspace(kPhaseRunning);
  set_cond(ws, kCondStoppedByRequest, true, "", "1s", 1);
  Action action = decide_action(ws, {pod("Running")}, in);
  EXPECT_EQ(action.kind, ActionKind::kDeletePod);
  EXPECT_EQ(action.grace_ms, std::optional<DurationMs>(1000));
}

TEST(Mk2Actions, ParseGrace) {
  EXPECT_EQ(parse_grace("30s"), std::optional<DurationMs>(30'000));
  EXPECT_EQ(parse_grace("x"), std::nullopt);
  EXPECT_EQ(parse_grace("5"), std::nullopt);
}

// status.go updateWorkspaceStatus: with more than one pod Failed is set every reconcile (the
// message is overwritten), not only when it is not yet true.
TEST(Mk2Status, MultiplePodsFailedIsOverwrittenNotSticky) {
  const Versions v;
  kube::Object ws = workspace(kPhaseRunning);
  set_cond(ws, kCondFailed, true, "", "an earlier failure", 10);
  update_workspace_status(ws, {pod("Running"), pod("Running")}, inputs(v, 2000));
  EXPECT_EQ(cond_message(ws, kCondFailed), "multiple pods exists - this should never happen");
}

// status.go extractFailure: a container that exited non-zero with a termination message is a
// failure even while the pod is being deleted (no forced phase then); exit 137 with
// ContainerStatusUnknown on an untainted node is none.
TEST(Mk2Status, TerminatingPodWithAFailedContainerMessageIsAFailure) {
  const Versions v;
  kube::Object p = pod("Running");
  p.meta.deletion_ms = 500;
  p.status["container.state"] = "terminated";
  p.status["container.exitCode"] = "1";
  p.status["container.reason"] = "Error";
  p.status["container.message"] = "supervisor crashed";
  const Failure f = extract_failure(workspace(kPhaseRunning), p, v);
  EXPECT_EQ(f.message, "supervisor crashed");
  EXPECT_FALSE(f.forced_phase.has_value());
  p.status["container.exitCode"] = "137";
  p.status["container.reason"] = "ContainerStatusUnknown";
  EXPECT_EQ(extract_failure(workspace(kPhaseRunning), p, v).message, "");
}

// workspace_controller.go deleteWorkspacePod: a successful delete returns Requeue: true (the old
// port returned done); NotFound is done; a Conflict becomes RequeueAfter 100 ms in Reconcile.
TEST(Mk2Actions, PodDeleteResultRequeuesAfterSuccess) {
  const ReconcileResult ok = pod_delete_result(kube::Status::Ok());
  EXPECT_TRUE(ok.requeue);
  EXPECT_FALSE(ok.error);
  EXPECT_EQ(ok.requeue_after_ms, 0);
  const ReconcileResult gone = pod_delete_result(kube::Status::Error(kube::Code::kNotFound, ""));
  EXPECT_FALSE(gone.requeue || gone.error || gone.requeue_after_ms > 0);
  EXPECT_EQ(pod_delete_result(kube::Status::Error(kube::Code::kConflict, "")).requeue_after_ms,
            100);
  EXPECT_TRUE(pod_delete_result(kube::Status::Error(kube::Code::kInternalError, "")).error);
}

}  // namespace
}  // namespace wsim::gitpod::mk2

#include "model/gitpod/mk2/manager.h"

namespace wsim::gitpod::mk2 {
namespace {

// §4.4 through timeout_deadlines(): each phase's timeout expires exactly at its deadline, a
// running workspace's maximum lifetime comes before its activity rule, and the deadlines of an
// object do not depend on the time they are asked at (the timeout controller reuses them).
TEST(Mk2Timeouts, DeadlinesFollowThePhaseTable) {
  const ManagerOptions o;
  kube::Object ws = workspace(kPhasePending);
  ws.meta.creation_ms = 1000;
  const auto at = [&](TimeMs now_ms) { return expired_timeout(ws, now_ms, o); };
  EXPECT_EQ(at(1000 + o.initialization_ms - 1), "");
  EXPECT_EQ(at(1000 + o.initialization_ms), "initialization");
  set_phase(ws, kPhaseInitializing);
  EXPECT_EQ(at(1000 + o.total_startup_ms - 1), "");
  EXPECT_EQ(at(1000 + o.total_startup_ms), "startup");
  set_phase(ws, kPhaseCreating);
  EXPECT_EQ(at(1000 + o.total_startup_ms), "creating containers");
  set_phase(ws, kPhaseRunning);
  // timeout_controller.go @ 4f45d02eac95 isWorkspaceTimedOut: Running without any activity is
  // activityNone, "period of inactivity", counted from the creation with TotalStartup.
  EXPECT_EQ(at(1000 + o.total_startup_ms), "period of inactivity");
  set_status_time(ws, kStatusLastActivityMs, 5000);
  EXPECT_EQ(at(5000 + o.regular_ms - 1), "");
  EXPECT_EQ(at(5000 + o.regular_ms), "period of inactivity");
  ws.spec[kSpecTimeoutMs] = "60000";
  EXPECT_EQ(at(5000 + 60000), "period of inactivity");
  EXPECT_EQ(at(5000 + 59999), "");
  set_cond(ws, kCondClosed, true, "", "", 5000);
  EXPECT_EQ(at(5000 + o.after_close_ms), "after being closed");
  set_status_time(ws, kStatusLastActivityMs, 1000 + o.max_lifetime_ms);
  EXPECT_EQ(at(1000 + o.max_lifetime_ms), "maximum lifetime");  // Before "after being closed".
  const TimeoutDeadlines deadlines = timeout_deadlines(ws, o);
  ASSERT_EQ(deadlines.count, 2);
  EXPECT_STREQ(deadlines.expired(0), "");
  EXPECT_STREQ(deadlines.expired(1000 + o.max_lifetime_ms + o.after_close_ms), "maximum lifetime");
  set_phase(ws, kPhaseStopping);
  EXPECT_EQ(timeout_deadlines(ws, o).count, 0);  // Only a CR being deleted.
  ws.meta.deletion_ms = 7000;
  EXPECT_EQ(at(7000 + o.content_finalization_ms - 1), "");
  EXPECT_EQ(at(7000 + o.content_finalization_ms), "backup");
  set_cond(ws, kCondBackupComplete, true, "", "", 7000);
  EXPECT_EQ(at(7000 + kHourMs - 1), "");
  EXPECT_EQ(at(7000 + kHourMs), "stopping");
  set_phase(ws, kPhaseStopped);
  EXPECT_EQ(at(1000 + o.max_lifetime_ms * 2), "");
}

// timeout_controller.go @ 4f45d02eac95 isWorkspaceTimedOut decide + formatDuration: the Timeout
// condition's message is "workspace timed out after <activity> (<elapsed>) took longer than
// <limit>", durations rounded to the minute as %02dh%02dm. The port wrote "timed out: inactivity".
TEST(Mk2Timeouts, MessageIsUpstreamsDecideText) {
  const ManagerOptions o;
  kube::Object ws = workspace(kPhaseRunning);
  ws.meta.creation_ms = 0;
  set_status_time(ws, kStatusLastActivityMs, 5 * kMinuteMs);
  const TimeoutDeadlines deadlines = timeout_deadlines(ws, o);
  EXPECT_EQ(deadlines.message(5 * kMinuteMs + o.regular_ms - 1), "");
  EXPECT_EQ(deadlines.message(5 * kMinuteMs + o.regular_ms + 40 * kSecondMs),
            "workspace timed out after period of inactivity (00h31m) took longer than 00h30m");
}

}  // namespace
}  // namespace wsim::gitpod::mk2
