// ws-manager mk1 in its two eras (docs/systems/gitpod.md §7, §8): the PLIS era (pod annotations +
// the plis-<id> ConfigMap, no pod finalizer, content finalized after the pod is gone) and the
// finalizer era (pod finalizer gitpod.io/finalizer, disposalStatus annotation, content finalized
// while the pod is Terminating).
//
// Upstream (gitpod-io/gitpod): components/ws-manager/pkg/manager/{manager.go, monitor.go,
// status.go, annotations.go, pod_controller.go, configmap_controller.go,
// internal/workpool/workpool.go} at 724ed7a92a^ (PLIS era) and c8c4c3bda92c (finalizer era).
// docs/fidelity.md lists every decision point and its test.
//
// Event delivery as upstream (event_pool.h):
//  - PLIS era: every pod watch event (PodPoolFeeder) goes to the per-workspace EventWorkerPool
//    with its own object, no coalescing; a Deleted event carries the last pod and marks it not
//    deployed, so its STOPPING handling patches the PLIS. ConfigMaps go through a
//    controller-runtime reconciler (coalesced per key, cache Get; NotFound sends nothing) that
//    adds a Modified event; a ConfigMap event is ignored while the pod exists in the cache.
//    Finalization therefore starts only when a PLIS event is handled after the pod is gone — if
//    the final PLIS patch fails, nothing finalizes and the 60-minute dangling-PLIS GC deletes the
//    PLIS without a backup.
//  - Finalizer era: a controller-runtime pod reconciler (coalesced, cache Get) adds the cached pod
//    as Modified, or — NotFound — the last pod it saw as Deleted.
//  - Informer resync 10 h (SyncPeriod unset: the default of controller-runtime v0.8.2 / v0.14.6,
//    the go.mod versions of the two eras); nothing else re-delivers.
// Goroutines for content init and finalization are actors, lost on restart; housekeeping does the
// timeouts and the dangling-PLIS GC.
//
// State writes use RetryOnConflict over the cache (state.cc) — in mk1-plis-direct (08774bd177^,
// before the controller-runtime switch) over direct API reads.
//
// mk1-plis-direct (docs/systems/gitpod.md §7.9): every read goes to the API server
// (m.Clientset was a kubernetes.Interface), and the monitor handled every ConfigMap watch event
// with its own object (no reconciler, no cache Get). Simplified: the events still come through
// the informer (List + Watch, relist after a dropped watch); upstream re-opened a bare Watch
// (synthetic ADDED events for what exists, nothing for what vanished in the gap).
//
// Every pod event first lists the pod's Events through the uncached client (status.go
// completeWorkspaceObjects: RawClient…Events().Search), and in mk1-plis-direct reads the PLIS
// from the API server too; a failed read drops the event (onPodEvent returns the error, the
// worker pool only logs it, nothing re-delivers it).
//
// Not modelled: services, PVCs, snapshots/prebuilds, the readiness probe (the kubelet's ready
// flag stands for it), the 7-minute unschedulable retry of §8.5, headless specifics.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/gitpod/mk1/annotations.h"
#include "model/gitpod/mk1/event_pool.h"
#include "model/gitpod/versions.h"
#include "model/gitpod/work_queue.h"
#include "model/gitpod/world/manager.h"
#include "sim/kube/cached_client.h"
#include "sim/kube/informer.h"

namespace wsim::gitpod {
class GitpodWorld;
}

namespace wsim::gitpod::mk1 {

// The mk1 API phases (§2.3 plus INTERRUPTED).
enum class Phase {
  kUnknown,
  kPending,
  kCreating,
  kInitializing,
  kRunning,
  kInterrupted,
  kStopping,
  kStopped
};
const char* phase_name(Phase phase);

struct PodStatus {
  Phase phase = Phase::kUnknown;
  std::string failure;
  bool ever_ready = false;
};

// §7.6 / §8.2: the phase of a workspace from its pod.
PodStatus status_from_pod(const kube::Object& pod, bool finalizer_era);

struct Mk1Options {
  int workers = 100;  // eventpoolWorkers.
  DurationMs housekeeping_ms = 15 * kSecondMs;
  DurationMs regular_timeout_ms = 30 * kMinuteMs;
  DurationMs startup_timeout_ms = kHourMs;  // Timeouts.TotalStartup ("startup": "60m").
  // Timeouts.Initialization, the PENDING timeout: "30m" in
  // chart/templates/ws-manager-configmap.yaml
  // @ 724ed7a92a^ :82.
  DurationMs initialization_timeout_ms = 30 * kMinuteMs;
  DurationMs content_finalization_ms = kHourMs;
  DurationMs stopping_timeout_ms = kHourMs;
  DurationMs lonely_plis_ms = 60 * kMinuteMs;
  int daemon_attempts = 24;  // wsdaemonMaxAttempts = 120/5.
  DurationMs daemon_retry_ms = 5 * kSecondMs;
};

class Mk1Manager : public Manager {
 public:
  static constexpr const char* kActor = "ws-manager";

  Mk1Manager(GitpodWorld& world, Mk1Options options = {});
  ~Mk1Manager() override;

  void start() override;
  void stop() override;
  bool up() const override { return up_; }
  Task<ApiReply> start_workspace(StartRequest request) override;
  Task<ApiReply> stop_workspace(std::string instance, StopPolicy policy) override;
  Task<ApiReply> mark_active(std::string instance) override;
  void set_maintenance(bool on) override { maintenance_ = on; }
  // manager.go getAllWorkspaceObjects (@ 724ed7a92a^ :1015-1080): the pods and the PLIS.
  bool lists(const std::string& instance) const override;

 private:
  bool plis_era() const;
  // mk1-plis-direct: reads go to the API server, not to the informer cache.
  bool direct_reads() const;
  // m.Clientset's Get: the API server in mk1-plis-direct, the cache otherwise.
  Task<kube::Result<kube::Object>> read(kube::ObjectRef ref);
  // monitor.cc
  // The informers sync before the monitor handles events (client-go WaitForCacheSync).
  Task<void> wait_for_caches();
  Task<void> worker(std::shared_ptr<EventPool> pool);
  // The controller-runtime reconcilers feeding the pool (configmap_controller.go; the
  // finalizer era's pod_controller.go).
  Task<void> config_map_reconciler(std::shared_ptr<WorkQueue> queue);
  Task<void> pod_reconciler(std::shared_ptr<WorkQueue> queue);
  Task<void> handle_event(MonitorEvent event);
  // status.go completeWorkspaceObjects for a pod event: false = a read failed, drop the event.
  Task<bool> complete_workspace_objects(const std::string& instance);
  Task<void> handle_config_map_event(const std::string& instance, const kube::Object& cm);
  Task<ReconcileResult> handle_pod(const std::string& instance, const kube::Object& pod,
                                   bool deleted);
  Task<ReconcileResult> handle_stopping_pod(const std::string& instance, const kube::Object& pod,
                                            const PodStatus& status);
  Task<ReconcileResult> handle_plis_only(const std::string& instance, const kube::Object& cm);
  Task<void> initialize(std::string instance, std::string node, std::string workspace_id);
  // The INITIALIZING goroutine: probe, WaitForInit, remove gitpod/never-ready (M11).
  Task<void> wait_for_workspace_ready(std::string instance, std::string node);
  Task<void> finalize_plis(std::string instance);
  Task<void> finalize_pod(std::string instance, std::string node, bool backup);
  Task<void> housekeeping();
  Task<void> housekeep_once();
  // One pod / one PLIS of housekeep_once (markTimedoutWorkspaces, the dangling-PLIS GC).
  Task<void> housekeep_pod(const kube::Object& pod, TimeMs now_ms);
  Task<void> housekeep_plis(const kube::Object& cm, bool pod_exists, TimeMs now_ms);
  // state.cc: retry-on-conflict writers (seed 004).
  Task<bool> mark_pod(std::string instance, std::function<bool(kube::Object&)> edit);
  Task<bool> patch_plis(std::string instance, std::function<bool(Plis&)> edit,
                        std::map<std::string, std::optional<std::string>> marks = {});
  // One RetryOnConflict attempt of mark_pod / patch_plis (Get from the cache, edit, Update).
  Task<kube::Status> mark_pod_once(std::string instance, std::function<bool(kube::Object&)> edit);
  Task<kube::Status> patch_plis_once(std::string instance, std::function<bool(Plis&)> edit,
                                     std::map<std::string, std::optional<std::string>> marks);
  Task<void> delete_pod(const std::string& instance, std::optional<DurationMs> grace_ms);
  Task<bool> delete_plis(const std::string& instance);
  void spawn_once(std::set<std::string>& running, const std::string& instance,
                  const std::string& what, Task<void> task);
  void on_pod(const kube::Object& pod, bool deleted);
  void on_config_map(const kube::Object& cm, bool deleted);

  GitpodWorld& world_;
  const Versions versions_;
  Mk1Options options_;
  kube::CachedClient client_;  // mgr.GetClient(): reads from pods_ / configmaps_ once started.
  ChoiceStream retry_stream_;  // Jitter of the RetryOnConflict backoffs.
  bool up_ = false;
  bool maintenance_ = false;
  std::unique_ptr<kube::Informer> pods_;
  std::unique_ptr<kube::Informer> configmaps_;
  std::shared_ptr<EventPool> pool_;
  std::shared_ptr<WorkQueue> cm_queue_;            // ConfigmapReconciler's work queue.
  std::shared_ptr<WorkQueue> pod_queue_;           // Finalizer era: PodReconciler's work queue.
  std::map<std::string, kube::Object> pods_seen_;  // PodReconciler.Pods (in memory).
  std::vector<ActorId> actors_;
  // In-memory state, lost on restart (§7.4).
  std::set<std::string> initializing_;
  std::set<std::string> finalizing_;
  std::set<std::string> probing_;  // probeMap.
  std::map<std::string, TimeMs> activity_ms_;
};

}  // namespace wsim::gitpod::mk1
