// ws-manager mk2: the Workspace controller and the timeout controller, each a
// controller-runtime-like WorkQueue fed by informers over the fake API, plus the gRPC API
// (StartWorkspace, StopWorkspace, MarkActive) and maintenance mode.
//
// Upstream (gitpod-io/gitpod @ 4f45d02eac95): components/ws-manager-mk2/controllers/
// {workspace_controller.go, status.go, timeout_controller.go, create.go} and service/manager.go,
// with each fix of versions.h switchable to its parent commit. docs/fidelity.md lists every
// decision point and its test.
//
// Reads go through the manager's cache (mgr.GetClient(): sim/kube CachedClient over the same
// informers the controllers watch): the Workspace and its pods in Reconcile, the Node in
// checkNodeDisappeared, the Workspace in modifyWorkspace (StopWorkspace, MarkActive) and the
// duplicate check of StartWorkspace. Writes go to the API server.
//
// Event sources (§3.6): Workspace CR changes, owned pod changes (by controller owner), node
// deletion (every CR whose runtime.nodeName is that node).
//
// Implementation is split by idea: manager.cc (wiring, restart), workspace_controller.cc
// (Reconcile + actOnStatus, §3.1/§3.5), timeout_controller.cc (§4.4), api.cc (§4.1–§4.3).
//
// Known simplifications: maintenance is an in-memory flag of the manager (the real one watches
// the ws-manager-mk2-maintenance-mode ConfigMap, §4.5; the #16702 "on until observed" default is
// not modelled); no metrics, events or subscriber (only its muting is relevant, §3.7, and no
// invariant reads it); headless workspaces only through spec type.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/gitpod/mk2/actions.h"
#include "model/gitpod/versions.h"
#include "model/gitpod/work_queue.h"
#include "model/gitpod/world/manager.h"
#include "sim/kube/cached_client.h"
#include "sim/kube/informer.h"

namespace wsim::gitpod {
class GitpodWorld;
}

namespace wsim::gitpod::mk2 {

struct ManagerOptions {
  int workspace_workers = 25;                    // WorkspaceMaxConcurrentReconciles (installer).
  int timeout_workers = 15;                      // TimeoutMaxConcurrentReconciles.
  DurationMs timeout_check_ms = 15 * kSecondMs;  // HeartbeatInterval/2.
  // Timeouts (installer defaults, §4.4).
  DurationMs initialization_ms = 30 * kMinuteMs;
  DurationMs total_startup_ms = kHourMs;
  DurationMs regular_ms = 30 * kMinuteMs;
  DurationMs after_close_ms = 2 * kMinuteMs;
  DurationMs max_lifetime_ms = 36 * kHourMs;
  DurationMs content_finalization_ms = kHourMs;
};

// §4.4 as deadlines: the timeouts that apply to `ws`, in the order the timeout controller tests
// them. They depend on `ws` alone, not on the time: the check of an unchanged cached object
// reuses them (reconcile_timeout, docs/performance.md §14.3).
struct TimeoutDeadlines {
  struct Deadline {
    TimeMs at_ms = 0;
    const char* reason = "";  // timeoutActivity: "period of inactivity", "backup", ...
    TimeMs from_ms = 0;       // The start the timeout counts from; at_ms = from_ms + limit.
  };
  std::array<Deadline, 2> deadlines{};
  int count = 0;
  // The reason of the first deadline at or before `now_ms`, "" if none has passed.
  const char* expired(TimeMs now_ms) const;
  // The Timeout condition's message for that deadline (isWorkspaceTimedOut's decide: "workspace
  // timed out after <activity> (<elapsed>) took longer than <limit>", durations as %02dh%02dm
  // rounded to the minute); "" if none has passed.
  std::string message(TimeMs now_ms) const;
};
TimeoutDeadlines timeout_deadlines(const kube::Object& ws, const ManagerOptions& options);
// §4.4: which timeout, if any, has expired for `ws` at `now_ms` ("" = none):
// timeout_deadlines(ws, options).expired(now_ms).
std::string expired_timeout(const kube::Object& ws, TimeMs now_ms, const ManagerOptions& options);

class Mk2Manager : public Manager {
 public:
  static constexpr const char* kActor = "ws-manager";

  Mk2Manager(GitpodWorld& world, ManagerOptions options = {});
  ~Mk2Manager() override;

  void start() override;
  void stop() override;
  bool up() const override { return up_; }
  Task<ApiReply> start_workspace(StartRequest request) override;
  Task<ApiReply> stop_workspace(std::string instance, StopPolicy policy) override;
  Task<ApiReply> mark_active(std::string instance) override;
  void set_maintenance(bool on) override { maintenance_ = on; }
  bool maintenance() const { return maintenance_; }
  // service/manager.go GetWorkspaces (:442-459): the Workspace CRs.
  bool lists(const std::string& instance) const override;

 private:
  // workspace_controller.cc
  Task<void> workspace_worker(std::shared_ptr<WorkQueue> queue);
  Task<ReconcileResult> reconcile(std::string name);
  Task<ReconcileResult> act_on_status(kube::Object& ws, const std::vector<kube::Object>& pods);
  Task<ReconcileResult> create_pod(kube::Object& ws);
  Task<ReconcileResult> reset_for_recreation_and_write(kube::Object& ws);
  Task<ReconcileResult> finalize_workspace(kube::Object& ws);
  Task<ReconcileResult> delete_pod(const kube::Object& pod, std::optional<DurationMs> grace_ms);
  Task<ReconcileResult> remove_pod_finalizer(const kube::Object& pod);
  // deleteWorkspaceSecrets / deleteSecret; false when a secret could not be deleted.
  Task<bool> delete_secrets(const std::string& name);
  Task<bool> delete_secret(std::string name);
  // api.cc: service/manager.go modifyWorkspace — retry.RetryOnConflict(retryParams: 10 steps,
  // 10 ms, factor 2, jitter 0.2) of Get (cache) → mutate → Status().Update. Ok, NotFound, or the
  // last error (Conflict when the steps ran out).
  Task<kube::Status> modify_workspace(std::string name, std::function<void(kube::Object&)> mutate);
  Task<kube::Status> modify_workspace_once(std::string name,
                                           std::function<void(kube::Object&)> mutate);
  std::vector<kube::Object> owned_pods(const std::string& name) const;
  ActionInputs action_inputs() const;
  // timeout_controller.cc
  Task<void> timeout_worker(std::shared_ptr<WorkQueue> queue);
  Task<ReconcileResult> reconcile_timeout(std::string name);
  Task<kube::Status> set_timeout_once(std::string name, std::string expired);
  // What reconcile_timeout reads of a cached Workspace, computed once per cached object: kept
  // per name until the informer changes that object (on_workspace erases it: every cache
  // change, relists included, reaches on_change), so a check of an unchanged CR reads neither
  // the cache nor the CR (docs/performance.md §14.3).
  struct TimeoutCheck {
    bool timed_out = false;  // The Timeout condition is True.
    TimeoutDeadlines deadlines;
  };
  // nullptr when the CR is not in the cache.
  const TimeoutCheck* timeout_check(const std::string& name);
  // manager.cc
  // controller-runtime starts the workers only after every informer synced (WaitForCacheSync);
  // reconciling against an empty pod cache would see "0 pods" for every workspace.
  Task<void> wait_for_caches();
  void on_workspace(const kube::Object& ws, bool deleted);
  void on_pod(const kube::Object& pod, bool deleted);
  void on_node(const kube::Object& node, bool deleted);

  GitpodWorld& world_;
  const Versions versions_;
  ManagerOptions options_;
  kube::CachedClient client_;  // Reads: the informers below, once started.
  ChoiceStream retry_stream_;  // Jitter of modifyWorkspace's RetryOnConflict.
  bool up_ = false;
  bool maintenance_ = false;
  std::unique_ptr<kube::Informer> workspaces_;
  std::unique_ptr<kube::Informer> pods_;
  std::unique_ptr<kube::Informer> nodes_;
  std::shared_ptr<WorkQueue> queue_;
  std::shared_ptr<WorkQueue> timeout_queue_;
  // Per cached Workspace name (erased when the informer changes or deletes it, and at stop()).
  std::map<std::string, TimeoutCheck> timeout_checks_;
  std::vector<ActorId> actors_;
};

}  // namespace wsim::gitpod::mk2
