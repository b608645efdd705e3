// Upstream: gitpod-io/gitpod @ 4f45d02eac95
// components/ws-manager-mk2/controllers/workspace_controller.go actOnStatus (docs/fidelity.md
// G10–G14).
#include "model/gitpod/mk2/actions.h"

#include <charconv>

#include "model/gitpod/conditions.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::gitpod::mk2 {
namespace {

Action make(ActionKind kind, std::string why) {
  WSIM_ASSERT(!why.empty());  // The trace names the case of §3.5 that matched.
  Action action;
  action.kind = kind;
  action.why = std::move(why);
  return action;
}

Action requeue_after(DurationMs delay_ms, std::string why) {
  WSIM_ASSERT_GT(delay_ms, 0);
  Action action = make(ActionKind::kRequeueAfter, std::move(why));
  action.requeue_after_ms = delay_ms;
  return action;
}

// §3.5 A2 (#20243+): phase Stopped ∧ PodRejected=True.
Action decide_recreation(const kube::Object& ws, const ActionInputs& in) {
  WSIM_ASSERT(phase(ws) == kPhaseStopped);  // decide_without_pods routes only A2 here.
  WSIM_ASSERT(cond_true(ws, kCondPodRejected));
  const std::int64_t recreated = status_int(ws, kStatusPodRecreated, 0);
  // Strict `>`: max+1 re-creations are allowed (§6.3).
  if (recreated > in.pod_recreation_max_retries) {
    return make(ActionKind::kRecreationLimit, "A2.1 max recreations reached");
  }
  const std::optional<TimeMs> deleted_ms = status_time(ws, kStatusPodDeletionMs);
  if (!deleted_ms.has_value()) return requeue_after(5 * kSecondMs, "A2.2 no podDeletionTime");
  const DurationMs backoff_ms = recreation_backoff_ms(in);
  WSIM_ASSERT_GT(backoff_ms, 0);
  if (in.now_ms < *deleted_ms + backoff_ms) {
    return requeue_after(*deleted_ms + backoff_ms - in.now_ms, "A2.3 recreation backoff");
  }
  return make(ActionKind::kResetForRecreation, "A2.4 reset for recreation");
}

Action decide_without_pods(const kube::Object& ws, const ActionInputs& in) {
  const std::int64_t starts = status_int(ws, kStatusPodStarts, 0);
  const std::int64_t recreated = status_int(ws, kStatusPodRecreated, 0);
  // Counters the controller only ever increments (create_pod, reset_for_recreation).
  WSIM_ASSERT_GE(starts, 0);
  WSIM_ASSERT_GE(recreated, 0);
  const bool rejection = in.versions->has(Fix::k20243);
  if (starts == 0 || (rejection && starts - recreated < 1)) {
    return make(ActionKind::kCreatePod, "A1 podStarts=" + std::to_string(starts));
  }
  if (rejection && phase(ws) == kPhaseStopped && cond_true(ws, kCondPodRejected)) {
    return decide_recreation(ws, in);
  }
  if (phase(ws) == kPhaseStopped) return make(ActionKind::kFinalizeWorkspace, "A3 stopped");
  return make(ActionKind::kNothing, "A4");
}

Action delete_pod(std::optional<DurationMs> grace_ms, std::string why) {
  if (grace_ms) WSIM_ASSERT_GE(*grace_ms, 0);  // parse_grace rejects negative seconds.
  Action action = make(ActionKind::kDeletePod, std::move(why));
  action.grace_ms = grace_ms;
  return action;
}

Action decide_with_pod(const kube::Object& ws, const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  const bool deleting = pod_deleting(pod);
  if (!deleting) {
    if (cond_true(ws, kCondFailed)) return delete_pod(std::nullopt, "B1 failed");
    if (cond_true(ws, kCondStoppedByRequest)) {
      return delete_pod(parse_grace(cond_message(ws, kCondStoppedByRequest)), "B2 stop request");
    }
    if (cond_true(ws, kCondNodeDisappeared)) return delete_pod(std::nullopt, "B3 node gone");
    if (cond_true(ws, kCondTimeout)) return delete_pod(std::nullopt, "B4 timeout");
    const kube::Condition* content = ws.condition(kCondContentReady);
    if (content != nullptr && content->status == "False" && content->reason == kReasonInitFailure) {
      return delete_pod(std::nullopt, "B5 init failure");
    }
    if (ws.meta.deletion_ms.has_value()) return delete_pod(std::nullopt, "B6 CR deleting");
    if (is_headless(ws) && phase(ws) == kPhaseStopped) {
      return delete_pod(std::nullopt, "B7 headless stopped");
    }
  }
  if (phase(ws) == kPhaseRunning) return make(ActionKind::kDeleteSecrets, "B8 running");
  if (phase(ws) == kPhaseStopped) return make(ActionKind::kRemovePodFinalizer, "B9 stopped");
  return make(ActionKind::kNothing, "B-none");
}

}  // namespace

DurationMs recreation_backoff_ms(const ActionInputs& inputs) {
  WSIM_ASSERT_GE(inputs.pod_recreation_backoff_ms, 0);
  const DurationMs backoff_ms =
      inputs.pod_recreation_backoff_ms > 0 ? inputs.pod_recreation_backoff_ms : 15 * kSecondMs;
  WSIM_ASSERT_GT(backoff_ms, 0);
  return backoff_ms;
}

Action decide_action(const kube::Object& ws, const std::vector<kube::Object>& pods,
                     const ActionInputs& inputs) {
  WSIM_ASSERT(inputs.versions != nullptr);
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  WSIM_ASSERT_GE(inputs.pod_recreation_max_retries, 0);
  const Action action =
      pods.empty() ? decide_without_pods(ws, inputs) : decide_with_pod(ws, pods.front());
  // Postconditions: a pod is created only when there is none, deleted only when there is one.
  if (!pods.empty()) WSIM_ASSERT(action.kind != ActionKind::kCreatePod);
  if (pods.empty()) WSIM_ASSERT(action.kind != ActionKind::kDeletePod);
  if (action.kind == ActionKind::kRequeueAfter) WSIM_ASSERT_GT(action.requeue_after_ms, 0);
  // A pod already being deleted is not deleted again (B1–B7 need a live pod).
  if (!pods.empty() && pod_deleting(pods.front())) {
    WSIM_ASSERT(action.kind != ActionKind::kDeletePod);
  }
  // The CR is finalized, and a re-creation reset, only once its pod is gone (A2, A3).
  if (action.kind == ActionKind::kFinalizeWorkspace) WSIM_ASSERT(pods.empty());
  if (action.kind == ActionKind::kResetForRecreation) {
    WSIM_ASSERT(pods.empty());
    WSIM_ASSERT(inputs.versions->has(Fix::k20243));  // Re-creation exists only since #20243.
  }

  return action;
}

void reset_for_recreation(kube::Object& ws, TimeMs now_ms) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  const std::int64_t starts = status_int(ws, kStatusPodStarts, 0);
  const std::int64_t recreated = status_int(ws, kStatusPodRecreated, 0) + 1;
  WSIM_ASSERT_GE(recreated, 1);
  const std::string token = status_str(ws, kStatusOwnerToken);
  ws.status.clear();
  ws.conditions.clear();
  set_phase(ws, kPhasePending);
  if (!token.empty()) ws.status[kStatusOwnerToken] = token;
  set_status_int(ws, kStatusPodStarts, starts);
  set_status_int(ws, kStatusPodRecreated, recreated);
  set_cond(ws, kCondPodRejected, false, "",
           "Recreating pod... (" + std::to_string(recreated) + " retry)", now_ms);
  WSIM_ASSERT_EQ(ws.conditions.size(), 1u);
  WSIM_ASSERT_EQ(status_int(ws, kStatusPodRecreated, 0), recreated);
  WSIM_ASSERT_EQ(status_int(ws, kStatusPodStarts, -1), starts);  // Kept: A1 compares the two.
  WSIM_ASSERT_EQ(phase(ws), std::string(kPhasePending));
}

std::optional<DurationMs> parse_grace(const std::string& message) {
  if (message.size() < 2 || message.back() != 's') return std::nullopt;
  std::int64_t seconds = 0;
  const char* begin = message.data();
  const char* end = message.data() + message.size() - 1;
  auto [ptr, error] = std::from_chars(begin, end, seconds);
  if (error != std::errc() || ptr != end || seconds < 0) return std::nullopt;
  return seconds * kSecondMs;
}

ReconcileResult pod_delete_result(const kube::Status& status) {
  if (status.is(kube::Code::kNotFound)) return ReconcileResult::done();
  if (status.ok()) return ReconcileResult::again();
  if (status.is(kube::Code::kConflict)) return ReconcileResult::after(100);
  return ReconcileResult::failed();
}

}  // namespace wsim::gitpod::mk2
