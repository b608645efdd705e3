// Upstream: gitpod-io/gitpod @ 4f45d02eac95 (docs/fidelity.md G3–G9).
//
// mk2 status derivation, ported from components/ws-manager-mk2/controllers/status.go
// (docs/systems/gitpod.md §3.2–§3.4): updateWorkspaceStatus, extractFailure, isDisposalFinished,
// isPodRejected.
//
// Pure functions: the reconciler (workspace_controller.h) gathers the inputs with API calls
// (each an interleaving point) and then derives the new status in memory, like the real code.
// Contract: update_workspace_status only edits `ws.status` and `ws.conditions`.
//
// Not modelled: metrics, events, headless snapshot URLs, image-pull failures (the fake kubelet
// never fails a pull), podIP churn (#20830).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/gitpod/versions.h"
#include "sim/core/time.h"
#include "sim/kube/object.h"

namespace wsim::gitpod::mk2 {

struct StatusInputs {
  const Versions* versions = nullptr;
  TimeMs now_ms = 0;
  bool maintenance = false;
  // §3.4 step 3: the pod has a nodeName and Get(node) answered NotFound.
  bool node_missing = false;
};

// §3.3. Post-#20243 a rejected workspace's disposal is finished iff StateWiped is present.
bool is_disposal_finished(const kube::Object& ws, const Versions& versions);

// §3.4 step 6: pod Failed, reason NodeAffinity/OutOfcpu/OutOfmemory, message "Pod was rejected…".
bool is_pod_rejected(const kube::Object& pod);

struct Failure {
  std::string message;  // "" = no failure.
  std::optional<std::string> forced_phase;
};
// §3.4 step 5, the rules in order; the first match wins.
Failure extract_failure(const kube::Object& ws, const kube::Object& pod, const Versions& versions);

// §3.2 (0 pods), §3.4 (1 pod), ">1 pods: Failed multiple pods exists". Also stamps
// podStoppingTime when the phase changes to Stopping (#20382's deferred hook).
void update_workspace_status(kube::Object& ws, const std::vector<kube::Object>& pods,
                             const StatusInputs& inputs);

// Deterministic 32-character owner token for a workspace (the real one is random; its value
// does not matter to the lifecycle).
std::string owner_token_for(const std::string& name);

}  // namespace wsim::gitpod::mk2
