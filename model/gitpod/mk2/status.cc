// Upstream: gitpod-io/gitpod @ 4f45d02eac95 components/ws-manager-mk2/controllers/status.go
// (updateWorkspaceStatus, extractFailure, isDisposalFinished, isPodRejected,
// checkNodeDisappeared); docs/fidelity.md G3–G9.
#include "model/gitpod/mk2/status.h"

#include <cstdint>
#include <string_view>

#include "model/gitpod/conditions.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "sim/core/assert.h"

namespace wsim::gitpod::mk2 {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  WSIM_ASSERT(!prefix.empty());  // An empty prefix would match every message.
  return text.compare(0, prefix.size(), prefix) == 0;
}

// §3.2: no pods.
void status_without_pods(kube::Object& ws, const StatusInputs& in) {
  WSIM_ASSERT(in.versions != nullptr);
  if (phase(ws).empty()) set_phase(ws, kPhasePending);
  if (phase(ws) == kPhaseStopping && is_disposal_finished(ws, *in.versions)) {
    set_phase(ws, kPhaseStopped);
  }
  // PR #20243: first reconcile that sees 0 pods while Stopped starts the re-creation backoff.
  if (in.versions->has(Fix::k20243) && phase(ws) == kPhaseStopped &&
      !status_time(ws, kStatusPodDeletionMs).has_value()) {
    set_status_time(ws, kStatusPodDeletionMs, in.now_ms);
  }
  // #20243's backoff has its start whenever the pod-less workspace is Stopped (A2.2 reads it).
  if (in.versions->has(Fix::k20243) && phase(ws) == kPhaseStopped) {
    WSIM_ASSERT(status_time(ws, kStatusPodDeletionMs).has_value());
  }
  if (in.versions->has(Fix::k19411)) {
    upsert_cond(ws, kCondContainerRunning, false, "", "", in.now_ms);
  }
}

// §3.4 step 3 (#17599).
void check_node_disappeared(kube::Object& ws, const StatusInputs& in) {
  if (!in.versions->has(Fix::k17599) || !in.node_missing) return;
  if (cond_true(ws, kCondNodeDisappeared)) return;
  if (!is_disposal_finished(ws, *in.versions)) {
    set_cond(ws, kCondBackupFailure, true, "BackupFailed",
             "workspace node disappeared before backup was taken", in.now_ms);
  }
  set_cond(ws, kCondNodeDisappeared, true, "NodeDisappeared", "", in.now_ms);
  // Post-#17599 a vanished node finishes the disposal (is_disposal_finished), backup or not,
  // unless #20243's rejection rule decides it (then StateWiped does).
  if (!cond_true(ws, kCondPodRejected)) WSIM_ASSERT(is_disposal_finished(ws, *in.versions));
}

// §3.4 step 6.
void detect_rejection(kube::Object& ws, const kube::Object& pod, const Failure& failure,
                      const StatusInputs& in) {
  if (!in.versions->has(Fix::k20243)) return;
  const bool rejected = is_pod_rejected(pod);
  // A rejected pod is Failed with a reason, so extract_failure always names a failure for it.
  if (rejected) WSIM_ASSERT(!failure.message.empty());
  if (failure.message.empty() || cond_true(ws, kCondPodRejected) || !rejected) return;
  // PR #20372: an ever-ready workspace follows the ordinary failure path (only logged).
  if (in.versions->has(Fix::k20372) && cond_true(ws, kCondEverReady)) return;
  set_cond(ws, kCondPodRejected, true, "PodRejected", failure.message, in.now_ms);
}

// §3.4 step 10, the phase table; the first matching row applies.
void derive_phase(kube::Object& ws, const kube::Object& pod, const StatusInputs& in) {
  const std::string pod_phase = pod_status_phase(pod);
  if (pod_deleting(pod)) {
    if (phase(ws) == kPhaseStopping && is_disposal_finished(ws, *in.versions)) {
      set_phase(ws, kPhaseStopped);
    } else if (phase(ws) != kPhaseStopped) {
      set_phase(ws, kPhaseStopping);
    }
    // A deleting pod's row only ever yields Stopping or Stopped.
    WSIM_ASSERT(phase(ws) == kPhaseStopping || phase(ws) == kPhaseStopped);
    return;
  }
  if (pod_phase == "Pending") {
    // The container view only where a row reads it (docs/performance.md §13.1).
    const ContainerView container = workspace_container(pod);
    const bool creating =
        container.state == ContainerState::kWaiting &&
        (container.reason == "ContainerCreating" || container.reason == "ImagePullBackOff" ||
         container.reason == "ErrImagePull");
    set_phase(ws, creating ? kPhaseCreating : kPhasePending);
    return;
  }
  if (pod_phase == "Running") {
    if (cond_true(ws, kCondEverReady)) {
      set_phase(ws, kPhaseRunning);  // Sticky.
    } else if (cond_true(ws, kCondContentReady) && workspace_container(pod).ready) {
      set_phase(ws, kPhaseRunning);
      set_cond(ws, kCondEverReady, true, "", "", in.now_ms);
    } else {
      set_phase(ws, kPhaseInitializing);
    }
    return;
  }
  if (is_headless(ws) && (pod_phase == "Succeeded" || pod_phase == "Failed")) {
    if (pod_phase == "Succeeded" && !cond_true(ws, kCondEverReady)) {
      set_cond(ws, kCondEverReady, true, "", "", in.now_ms);
    }
    if (phase(ws) == kPhaseStopping && is_disposal_finished(ws, *in.versions)) {
      set_phase(ws, kPhaseStopped);
    } else if (phase(ws) != kPhaseStopped && !in.maintenance) {
      set_phase(ws, kPhaseStopping);
    }
    // Outside maintenance this row always ends in Stopping or Stopped.
    if (!in.maintenance) WSIM_ASSERT(phase(ws) == kPhaseStopping || phase(ws) == kPhaseStopped);
    return;
  }
  // pod phase Unknown, and anything else, e.g. a Regular pod in Failed (a rejected pod).
  set_phase(ws, kPhaseUnknown);
}

// §3.4 with exactly one pod.
void status_with_pod(kube::Object& ws, const kube::Object& pod, const StatusInputs& in) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  if (!cond_present(ws, kCondDeployed)) set_cond(ws, kCondDeployed, true, "", "", in.now_ms);
  const std::string node = pod_node(pod);
  // Presence tests read views (status_str would copy each value).
  if (ws.status_view(kStatusNodeName).empty() && !node.empty()) ws.status[kStatusNodeName] = node;
  if (ws.status_view(kStatusPodName).empty()) ws.status[kStatusPodName] = pod.meta.name;
  if (ws.status_view(kStatusHostIp).empty() && !node.empty()) {
    ws.status[kStatusHostIp] = "ip-" + node;
  }
  // Runtime.PodIP once the pod has one (its sandbox runs): what ws-proxy routes the IDE to
  // (run.cc user_write).
  if (ws.status_view(kStatusPodIp).empty() && container_running(pod)) {
    ws.status[kStatusPodIp] = "ip-" + pod.meta.name;
  }
  if (!node.empty()) check_node_disappeared(ws, in);
  if (ws.status_view(kStatusUrl).empty()) ws.status[kStatusUrl] = "https://" + ws.meta.name + ".ws";
  if (ws.status_view(kStatusOwnerToken).empty()) {
    ws.status[kStatusOwnerToken] = owner_token_for(ws.meta.name);
  }
  WSIM_ASSERT(!ws.status_view(kStatusPodName).empty());

  const Failure failure = extract_failure(ws, pod, *in.versions);
  if (failure.forced_phase.has_value()) set_phase(ws, *failure.forced_phase);
  detect_rejection(ws, pod, failure, in);
  if (!failure.message.empty() && !cond_true(ws, kCondFailed)) {
    set_cond(ws, kCondFailed, true, "", failure.message, in.now_ms);
  }
  if (in.versions->has(Fix::k19411)) {
    upsert_cond(ws, kCondContainerRunning, container_running(pod), "", "", in.now_ms);
  }
  derive_phase(ws, pod, in);
}

}  // namespace

bool is_disposal_finished(const kube::Object& ws, const Versions& versions) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  if (versions.has(Fix::k20243) && cond_true(ws, kCondPodRejected)) {
    return cond_present(ws, kCondStateWiped);  // Presence counts, True or False (B10).
  }
  return cond_true(ws, kCondBackupComplete) || cond_true(ws, kCondBackupFailure) ||
         cond_true(ws, kCondAborted) || !cond_true(ws, kCondContentReady) ||
         (versions.has(Fix::k17599) && cond_true(ws, kCondNodeDisappeared)) || is_image_build(ws);
}

bool is_pod_rejected(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  if (pod_status_phase(pod) != "Failed") return false;
  const std::string reason = pod.status_or("reason", "");
  if (reason != "NodeAffinity" && reason != "OutOfcpu" && reason != "OutOfmemory") return false;
  return starts_with(pod.status_or("message", ""), kRejectPrefix);
}

Failure extract_failure(const kube::Object& ws, const kube::Object& pod, const Versions& versions) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  const kube::Condition* content = ws.condition(kCondContentReady);
  if (content != nullptr && content->status == "False" && content->reason == kReasonInitFailure) {
    return {"Content initialization failed: " + content->message, std::nullopt};
  }
  if (cond_present(ws, kCondBackupFailure)) {
    return {"Backup failed: " + cond_message(ws, kCondBackupFailure), std::nullopt};
  }
  if (versions.has(Fix::k20243) && cond_false(ws, kCondStateWiped)) {
    return {"Wiping workspace state failed: " + cond_message(ws, kCondStateWiped), std::nullopt};
  }
  const std::string_view reason = pod.status_view("reason");
  const std::string_view message = pod.status_view("message");
  if (pod_status_phase(pod) == "Failed" && (!reason.empty() || !message.empty())) {
    return {std::string(reason) + ": " + std::string(message), std::nullopt};
  }
  // Per-container rules. The fake kubelet never fails an image pull; a container terminates
  // on its own only through exit_container(). The whole container view only for a terminated
  // container (docs/performance.md §13.1).
  if (workspace_container_state(pod) != ContainerState::kTerminated) return {};
  const ContainerView c = workspace_container(pod);
  const bool deleting = pod_deleting(pod);
  if (c.exit_code != 0 && !c.message.empty()) {
    // status.go extractFailure: a failure even while the pod is being deleted (then without a
    // forced phase). Exceptions: exit 137 with ContainerStatusUnknown on an untainted node (the
    // model's nodes have no taints), and a headless task's own failure message.
    if (c.exit_code == 137 && c.reason == "ContainerStatusUnknown") return {};
    if (is_headless(ws) && starts_with(c.message, "headless task failed: ")) return {};
    if (deleting) return {c.message, std::nullopt};
    return {c.message, std::string(kPhaseRunning)};
  }
  if (deleting) return {};
  if (c.reason == "Error" && c.exit_code != 137) {
    return {"container " + std::string(kContainerName) + " ran with an error: exit code " +
                std::to_string(c.exit_code),
            std::string(kPhaseRunning)};
  }
  if (c.reason == "Completed" && !is_headless(ws)) {
    return {"container " + std::string(kContainerName) +
                " completed; containers of a workspace pod"
                " are not supposed to do that",
            std::nullopt};
  }
  if (c.exit_code == 255) return {"container terminated with exit 255", std::nullopt};
  return {"container " + std::string(kContainerName) + " terminated unexpectedly",
          std::string(kPhaseUnknown)};
}

void update_workspace_status(kube::Object& ws, const std::vector<kube::Object>& pods,
                             const StatusInputs& inputs) {
  WSIM_ASSERT(inputs.versions != nullptr);
  WSIM_ASSERT(inputs.versions->mk2());
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  const std::string before = phase(ws);
  if (pods.empty()) {
    status_without_pods(ws, inputs);
  } else if (pods.size() > 1) {
    // status.go updateWorkspaceStatus: SetCondition every time (not sticky like the pod rule).
    set_cond(ws, kCondFailed, true, "", "multiple pods exists - this should never happen",
             inputs.now_ms);
  } else {
    status_with_pod(ws, pods.front(), inputs);
  }
  // #20382: a deferred hook stamps podStoppingTime whenever the phase changed to Stopping.
  if (inputs.versions->has(Fix::k20382) && phase(ws) == kPhaseStopping &&
      before != kPhaseStopping) {
    set_status_time(ws, kStatusPodStoppingMs, inputs.now_ms);
  }
  WSIM_ASSERT(!phase(ws).empty());
}

std::string owner_token_for(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char ch : name) {
    hash ^= static_cast<unsigned char>(ch);
    hash *= 0x100000001b3ULL;
  }
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string token;
  for (int i = 0; i < 32; ++i) {
    token += kAlphabet[hash % 36];
    hash = hash * 6364136223846793005ULL + 1442695040888963407ULL;
  }
  WSIM_ASSERT_EQ(token.size(), 32u);
  return token;
}

}  // namespace wsim::gitpod::mk2
