// Not a port: liveness checks [reconstructed] from the design properties (catalog.h).
//
// Checker::liveness(): L1–L6 after the settle phase (docs/systems/gitpod.md §11.2), plus the data
// losses still waiting for a marker (silent at the end of the run).
#include <sstream>

#include "model/gitpod/conditions.h"
#include "model/gitpod/invariants/catalog.h"
#include "model/gitpod/invariants/checker.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"

namespace wsim::gitpod {
namespace {

bool must_stop(const kube::Object& ws) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  return cond_true(ws, kCondStoppedByRequest) || cond_true(ws, kCondTimeout) ||
         cond_true(ws, kCondFailed) || cond_true(ws, kCondNodeDisappeared) ||
         ws.meta.deletion_ms.has_value();
}

// 5 min force kill (#20382) + 2 s + the backup itself, with margin.
constexpr DurationMs kStopBoundMs = 10 * kMinuteMs;

// A deleted pod whose grace period (plus kStopBoundMs) has not run out yet at `now_ms`.
bool pod_still_in_grace(const kube::Object& pod, TimeMs now_ms) {
  if (!pod.meta.deletion_ms.has_value()) return false;
  const DurationMs grace_ms = pod.meta.deletion_grace_period_ms.value_or(0);
  WSIM_ASSERT_GE(grace_ms, 0);
  return now_ms < *pod.meta.deletion_ms + grace_ms + kStopBoundMs;
}

}  // namespace

std::vector<run::Violation> Checker::liveness() {
  std::vector<run::Violation> out;
  kube::ApiServer& api = world_.api();
  const int max_recreations = world_.settings().pod_recreation_max_retries + 1;
  WSIM_ASSERT_GE(max_recreations, 1);
  for (const auto& [name, inst] : instances_) {
    const kube::Object* ws = api.peek(kube::ObjectRef{kWorkspaceKind, kNamespace, name});
    const kube::Object* pod = api.peek(kube::ObjectRef{"Pod", kNamespace, pod_name(name)});
    if (versions_.mk2() && ws != nullptr) {
      const std::string p = phase(*ws);
      if (pod != nullptr && !pod_deleting(*pod) && must_stop(*ws)) {
        out.push_back({kL1, name, "pod " + pod->meta.name + " not deleted although phase " + p});
      }
      // docs/systems/gitpod.md §11.2 L2 is "eventually": a stop that began in the last kStopBoundMs
      // of the run (e.g. the 1 h TotalStartup timeout of §4.4 firing late in the settle phase) may
      // still be waiting for the container to stop (30 min grace, force kill after 5 min, #20382
      // §5.4 step 3). Only a Stopping older than that bound is stuck.
      if (p == kPhaseStopping && world_.sim().now_ms() - inst.stopping_since_ms >= kStopBoundMs) {
        out.push_back({kL2, name, "stuck in Stopping"});
      }
      // The workspace must stop (stop request, timeout, failure, CR deletion) but its pod is
      // gone while the phase was not Stopping (§3.2: "any other phase is left unchanged"): it
      // can never reach Stopping, and its content is never backed up.
      if (pod == nullptr && p != kPhaseStopping && p != kPhaseStopped && must_stop(*ws)) {
        out.push_back({kL2, name, "must stop but stuck in " + p + " without a pod"});
      }
      // L3 is "eventually" too: the CR goes once its pod is gone, and a pod deleted late in the
      // run may still be inside its grace period (30 min for a workspace pod whose container
      // ignores SIGTERM) plus the stop bound (hunt of rejected-and-daemon-down, seed 593: an
      // inactivity timeout 10 min before the end).
      if (p == kPhaseStopped && !cond_true(*ws, kCondPodRejected) &&
          !(pod != nullptr && pod_still_in_grace(*pod, world_.sim().now_ms()))) {
        out.push_back({kL3, name, "Stopped but the CR was never removed"});
      }
    }
    if (!versions_.mk2() && pod != nullptr && pod_deleting(*pod)) {
      out.push_back({kL2, name, "pod stuck Terminating"});
    }
    const int rejections = static_cast<int>(inst.rejected_pods.size());
    if (rejections > 0 && !inst.stop_succeeded && !inst.stop_applied && !inst.timed_out) {
      // docs/systems/gitpod.md §11.2 L4: "Running after ≤ max+1 re-creations" ends the start; a
      // workspace that got there and was later rejected after ready (#20372: Failed → backup →
      // Stopped → CR deleted, §3.4 step 6) or stopped for another reason met L4.
      // A CR an operator deleted ends by request: ws-manager-mk2 deletes the pod of a CR being
      // deleted and then the CR (workspace_controller.go@4f45d02eac95 actOnStatus :347-348,
      // :279-300), after re-creating the pod of a rejected one first (:236-277, :196-234 do not
      // look at the deletionTimestamp), so it never gets to Running (docs/dismissals.md).
      const bool running = ws != nullptr && phase(*ws) == kPhaseRunning;
      if (rejections <= max_recreations && !running && !inst.reached_running &&
          !inst.failed_otherwise && operator_deleted_.count(name) == 0) {
        std::ostringstream why;
        why << "kubelet rejections: " << rejections << " (limit " << max_recreations
            << ") but ended " << (ws == nullptr ? std::string("deleted") : phase(*ws));
        if (ws != nullptr && cond_true(*ws, kCondFailed))
          why << ": " << cond_message(*ws, kCondFailed);
        out.push_back({kL4, name, why.str()});
      }
      if (rejections > max_recreations && ws != nullptr) {
        out.push_back(
            {kL4, name,
             "over the re-creation limit but never cleaned up (phase " + phase(*ws) + ")"});
      }
    }
    if (inst.stop_succeeded) {
      if (ws != nullptr)
        out.push_back({kL5, name, "stopped by the user but CR remains in " + phase(*ws)});
      if (inst.pods_after_stop > 0) {
        out.push_back({kL5, name,
                       std::to_string(inst.pods_after_stop) +
                           " pod(s) created after a successful StopWorkspace"});
      }
    }
  }
  for (const run::Violation& v : maintenance_timeouts_) out.push_back(v);
  for (const DataLoss& loss : ledger_->finish(world_.sim().now_ms())) {
    WSIM_ASSERT(!loss.workspace_id.empty());
    if (!loss.acknowledged) {
      out.push_back({kNoSilentLoss, loss.workspace_id,
                     "version " + std::to_string(loss.lost_version) + " lost: " + loss.cause});
    }
  }
  return out;
}

std::string Checker::describe_losses() const {
  std::ostringstream out;
  for (const DataLoss& loss : ledger_->losses()) {
    out << "  loss " << loss.workspace_id << " v" << loss.lost_version << " by " << loss.instance
        << " (" << loss.cause << ", "
        << (loss.acknowledged ? "acknowledged: " + loss.marker : "silent") << ") at " << loss.at_ms
        << " ms\n";
  }
  return out.str();
}

}  // namespace wsim::gitpod
