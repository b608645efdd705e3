// Upstream: gitpod-io/gitpod @ 4f45d02eac95 (docs/fidelity.md G10–G14).
//
// mk2 actOnStatus as a decision (docs/systems/gitpod.md §3.5), ported from
// components/ws-manager-mk2/controllers/workspace_controller.go.
//
// decide_action() is pure: it picks the first matching case of §3.5 A (no pods) or B (one pod)
// from the in-memory status. The reconciler executes the decision with API calls, each an
// interleaving point, exactly in the order of the real code (workspace_controller.h).
//
// Not modelled: metrics, events, secrets' retry budget (one attempt each, best effort).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/gitpod/versions.h"
#include "model/gitpod/work_queue.h"
#include "sim/core/time.h"
#include "sim/kube/object.h"
#include "sim/kube/status.h"

namespace wsim::gitpod::mk2 {

enum class ActionKind {
  kNothing,
  // A1: create the pod; then merge-patch podStarts += 1 (post-#16622).
  kCreatePod,
  // A2.1: podRecreated > max: PodRejected=False "maximum recreations" set in memory only, and
  // Requeue (B6: never persisted).
  kRecreationLimit,
  // A2.2 / A2.3: wait for podDeletionTime or the backoff.
  kRequeueAfter,
  // A2.4–A2.5: reset the status for a re-creation and write it.
  kResetForRecreation,
  // A3: delete the secrets, remove the CR finalizer, delete the CR.
  kFinalizeWorkspace,
  // B1–B7: delete the pod with `grace_ms` (nullopt = the pod's own 30 min).
  kDeletePod,
  // B8: delete the secrets (best effort).
  kDeleteSecrets,
  // B9: remove the pod finalizer; RequeueAfter 10 s if it had one.
  kRemovePodFinalizer,
};

struct Action {
  ActionKind kind = ActionKind::kNothing;
  DurationMs requeue_after_ms = 0;     // kRequeueAfter.
  std::optional<DurationMs> grace_ms;  // kDeletePod.
  std::string why;                     // For the trace: which case of §3.5 matched.
};

struct ActionInputs {
  const Versions* versions = nullptr;
  TimeMs now_ms = 0;
  int pod_recreation_max_retries = 0;
  DurationMs pod_recreation_backoff_ms = 0;  // 0 → 15 s.
};

// The re-creation backoff in effect (A2.3).
DurationMs recreation_backoff_ms(const ActionInputs& inputs);

// REQUIRES: pods.size() <= 1 is not required; with >1 pods the B rules look at the first one,
// like the real code (which only acts on pods.Items[0]).
Action decide_action(const kube::Object& ws, const std::vector<kube::Object>& pods,
                     const ActionInputs& inputs);

// A2.4: the reset status (keeps phase=Pending, ownerToken, podStarts, podRecreated+1 and one
// condition PodRejected=False "Recreating pod... (n retry)").
void reset_for_recreation(kube::Object& ws, TimeMs now_ms);

// Grace period from StoppedByRequest's message ("30s" / "1s"), nullopt if unparsable.
std::optional<DurationMs> parse_grace(const std::string& message);

// workspace_controller.go deleteWorkspacePod (and the StoppedByRequest / headless deletes) as
// Reconcile returns it: NotFound → done; success → Requeue (rate-limited, no error); Conflict →
// RequeueAfter 100 ms (errorResultLogConflict); any other error → the error.
ReconcileResult pod_delete_result(const kube::Status& status);

}  // namespace wsim::gitpod::mk2
