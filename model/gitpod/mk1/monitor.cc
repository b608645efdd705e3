// The mk1 monitor (monitor.go, status.go at 724ed7a92a^ and c8c4c3bda92c; docs/systems/gitpod.md
// §7.4–§7.8, §8.2–§8.4): per-workspace event handling, content init and finalization goroutines,
// housekeeping (timeouts, dangling PLIS GC).
#include "model/gitpod/conditions.h"
#include "model/gitpod/daemon/ws_daemon.h"
#include "model/gitpod/mk1/manager.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::gitpod::mk1 {
namespace {

bool has_ann(const kube::Object& o, const char* key) { return o.meta.annotations.count(key) > 0; }

std::string ann(const kube::Object& o, const char* key) {
  auto it = o.meta.annotations.find(key);
  return it == o.meta.annotations.end() ? std::string() : it->second;
}

}  // namespace

PodStatus status_from_pod(const kube::Object& pod, bool finalizer_era) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  PodStatus out;
  out.ever_ready = !has_ann(pod, kAnnNeverReady);
  if (has_ann(pod, kAnnExplicitFail)) out.failure = ann(pod, kAnnExplicitFail);
  const std::string p = pod_status_phase(pod);
  if (out.failure.empty() && p == "Failed") {
    out.failure = pod.status_or("reason", "") + ": " + pod.status_or("message", "");
  }
  if (pod_deleting(pod)) {
    out.phase = Phase::kStopping;
    if (finalizer_era) {
      // §8.2: no gitpod finalizer → STOPPED; disposal finished → STOPPED.
      if (!kube::has_finalizer(pod, kFinalizer) || read_disposal(pod).status == "finished") {
        out.phase = Phase::kStopped;
      }
    }
    if (!has_ann(pod, kAnnFailedBeforeStopping)) out.failure.clear();
    return out;
  }
  if (p == "Pending") {
    out.phase = workspace_container(pod).reason == "ContainerCreating" && !out.ever_ready
                    ? Phase::kCreating
                    : Phase::kPending;
    return out;
  }
  if (p == "Running") {
    // RUNNING only once gitpod/never-ready is gone, whatever the kubelet says (status.go
    // @ c8c4c3bda92c :515-531, @ 724ed7a92a^ :554-578: "workspace has not yet been marked ready
    // by one of monitor's probes. It must be initializing then"). Before that: finalizer era,
    // INITIALIZING once alreadyInitializing is set, else CREATING; PLIS era, INITIALIZING once the
    // container is ready, else CREATING. Until issue #30 (M11) a kubelet-ready pod was RUNNING.
    const bool ready = pod.status_or("ready", "") == "true";
    if (out.ever_ready) {
      out.phase = Phase::kRunning;
    } else if (finalizer_era) {
      out.phase = has_ann(pod, kAnnAlreadyInitializing) ? Phase::kInitializing : Phase::kCreating;
    } else {
      // Simplified: the port starts content init from CREATING until alreadyInitializing is set,
      // so a ready pod without it stays CREATING here (upstream: INITIALIZING, whose
      // waitForWorkspaceReady starts the init after WaitForInit's NotFound).
      out.phase =
          ready && has_ann(pod, kAnnAlreadyInitializing) ? Phase::kInitializing : Phase::kCreating;
    }
    return out;
  }
  out.phase = Phase::kUnknown;
  return out;
}

// No std::array of informers across the co_await: g++ 12 destroys brace-initialised aggregates
// living across a co_await twice (sim/kube/README.md).
Task<void> Mk1Manager::wait_for_caches() {
  if (pods_) co_await pods_->wait_synced();
  if (configmaps_) co_await configmaps_->wait_synced();
}

Task<void> Mk1Manager::worker(std::shared_ptr<EventPool> pool) {
  co_await wait_for_caches();
  while (true) {
    std::optional<MonitorEvent> event = co_await pool->next();
    if (!event.has_value()) co_return;
    WSIM_ASSERT(!event->queue.empty());  // EventPool::add refuses an event without a queue.
    const std::string queue = event->queue;
    co_await handle_event(std::move(*event));
    pool->done(queue);
  }
}

// configmap_controller.go Reconcile: Get from the cache; NotFound → nothing; a ConfigMap with a
// gitpod/id annotation → a Modified event carrying the cached object.
Task<void> Mk1Manager::config_map_reconciler(std::shared_ptr<WorkQueue> queue) {
  while (true) {
    std::optional<std::string> key = co_await queue->next();
    if (!key.has_value()) co_return;
    WSIM_ASSERT(!key->empty());
    kube::Result<kube::Object> cm =
        co_await client_.get(kube::ObjectRef("ConfigMap", kNamespace, *key));
    if (cm.ok() && pool_ && has_ann(cm.value, kAnnId)) {
      const std::string id = ann(cm.value, kAnnId);
      pool_->add(MonitorEvent(id, MonitorEvent::Kind::kConfigMap, false, std::move(cm.value)));
    }
    queue->finish(*key, ReconcileResult::done());
  }
}

// pod_controller.go Reconcile (finalizer era): the cached pod as Modified (remembered), or, once
// the cache has no such pod, the last remembered one as Deleted.
Task<void> Mk1Manager::pod_reconciler(std::shared_ptr<WorkQueue> queue) {
  while (true) {
    std::optional<std::string> key = co_await queue->next();
    if (!key.has_value()) co_return;
    WSIM_ASSERT(!key->empty());
    kube::Result<kube::Object> pod = co_await client_.get(kube::ObjectRef("Pod", kNamespace, *key));
    if (pool_ && pod.status.is(kube::Code::kNotFound)) {
      auto seen = pods_seen_.find(*key);
      if (seen != pods_seen_.end()) {
        kube::Object last = std::move(seen->second);
        pods_seen_.erase(seen);
        if (has_ann(last, kAnnId)) {
          const std::string id = ann(last, kAnnId);
          pool_->add(MonitorEvent(id, MonitorEvent::Kind::kPod, true, std::move(last)));
        }
      }
    } else if (pool_ && pod.ok()) {
      pods_seen_[*key] = pod.value;
      if (has_ann(pod.value, kAnnId)) {
        const std::string id = ann(pod.value, kAnnId);
        pool_->add(MonitorEvent(id, MonitorEvent::Kind::kPod, false, std::move(pod.value)));
      }
    }
    queue->finish(*key, ReconcileResult::done());
  }
}

Task<void> Mk1Manager::handle_event(MonitorEvent event) {
  WSIM_ASSERT(!event.queue.empty());
  // The pool's event kind names its object's kind (on_pod, on_config_map, the reconcilers).
  WSIM_ASSERT_EQ(event.object.kind,
                 std::string(event.kind == MonitorEvent::Kind::kPod ? "Pod" : "ConfigMap"));
  if (!pods_ || !configmaps_) co_return;
  if (event.kind == MonitorEvent::Kind::kPod) {
    // onPodEvent: getWorkspaceObjects' error returns before any status or action; handleEvent
    // only logs it (OnError), and the pool has no retry: the event is lost.
    // Named: g++ 12 never resumes a coroutine with `if (!co_await ...)` correctly (the worker
    // hung on its first event).
    const bool complete = co_await complete_workspace_objects(event.queue);
    if (!complete) co_return;
    (void)co_await handle_pod(event.queue, event.object, event.deleted);
    co_return;
  }
  co_await handle_config_map_event(event.queue, event.object);
}

// status.go completeWorkspaceObjects for a pod (@ 08774bd177^ :249, @ 724ed7a92a^ :251,
// @ c8c4c3bda92c :177): Events(namespace).Search(pod) is a List through the uncached client
// (RawClient; in 08774bd177^ the only client) on every pod event, the Deleted one included. In
// the PLIS era the PLIS is read too (:269): from the cache in mk1-plis (only NotFound, which is
// fine), from the API server in mk1-plis-direct. Any other error fails the event.
// Not modelled: the two Service Gets (the model has no Services).
Task<bool> Mk1Manager::complete_workspace_objects(const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  kube::Result<std::vector<kube::Object>> events =
      co_await client_.reader().list("Event", kNamespace);
  kube::Status failed = events.status;
  if (failed.ok() && direct_reads()) {
    kube::Result<kube::Object> plis =
        co_await read(kube::ObjectRef("ConfigMap", kNamespace, plis_name(instance)));
    if (!plis.ok() && !plis.status.is(kube::Code::kNotFound)) failed = plis.status;
  }
  if (failed.ok()) co_return true;
  world_.sim().record(kActor, "drop-event", instance, kube::code_name(failed.code),
                      "completeWorkspaceObjects failed: pod event dropped");
  co_return false;
}

// monitor.go onConfigMapEvent.
Task<void> Mk1Manager::handle_config_map_event(const std::string& instance,
                                               const kube::Object& cm) {
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT_EQ(cm.kind, std::string("ConfigMap"));
  if (!plis_era() || cm.meta.deletion_ms.has_value()) co_return;  // DeletionGracePeriodSeconds.
  // completeWorkspaceObjects reads the pod (findWorkspacePod: through the cache, in
  // mk1-plis-direct from the API server); while it exists the event is ignored (a stable order of
  // states), and so is any error (it fails the event).
  kube::Result<kube::Object> pod =
      co_await read(kube::ObjectRef("Pod", kNamespace, pod_name(instance)));
  if (!pod.status.is(kube::Code::kNotFound)) co_return;
  (void)co_await handle_plis_only(instance, cm);
}

// monitor.go onPodEvent + actOnPodEvent, for one event's pod (deleted: the watch.Deleted event,
// whose status is computed with Deployed=false).
Task<ReconcileResult> Mk1Manager::handle_pod(const std::string& instance, const kube::Object& pod,
                                             bool deleted) {
  WSIM_ASSERT(!instance.empty());
  const PodStatus status = status_from_pod(pod, !plis_era());
  // STOPPED from a pod exists only in the finalizer era (§8.2); RUNNING only without
  // gitpod/never-ready (status_from_pod), which the switch below relies on.
  if (status.phase == Phase::kStopped) WSIM_ASSERT(!plis_era());
  if (status.phase == Phase::kRunning) WSIM_ASSERT(!has_ann(pod, kAnnNeverReady));
  // onPodEvent tells the subscribers before acting (monitor.go @ 724ed7a92a^ :219-230,
  // m.manager.OnChange; the same @ c8c4c3bda92c): the status computed from this event's pod.
  publish_status(instance, phase_name(status.phase));
  const bool deleting = pod_deleting(pod);
  const bool timed_out = has_ann(pod, kAnnTimedOut);
  if (plis_era()) {
    if (status.phase == Phase::kStopping) {
      // "this may be the last pod-based status we'll ever see" (§7.7 step 2).
      const std::string node = pod_node(pod);
      const TimeMs now_ms = world_.sim().now_ms();
      (void)co_await patch_plis(instance, [&](Plis& plis) {
        const Plis before = plis;
        if (!plis.stopping_since_ms.has_value()) plis.stopping_since_ms = now_ms;
        plis.last_pod_phase = phase_name(Phase::kStopping);
        plis.last_pod_ever_ready = status.ever_ready;
        plis.last_pod_deployed = !deleted;
        if (!node.empty()) plis.host_ip = node;
        return !(plis == before);
      });
      co_return ReconcileResult::done();
    }
    if (!status.failure.empty() || timed_out) {
      const std::string node = pod_node(pod);
      const TimeMs now_ms = world_.sim().now_ms();
      (void)co_await patch_plis(instance, [&](Plis& plis) {
        if (!plis.stopping_since_ms.has_value()) plis.stopping_since_ms = now_ms;
        plis.last_pod_phase = phase_name(Phase::kStopping);
        plis.last_pod_ever_ready = status.ever_ready;
        plis.last_pod_deployed = !deleted;
        plis.host_ip = node;
        return true;
      });
      co_await delete_pod(instance, 30 * kSecondMs);
      co_return ReconcileResult::done();
    }
  } else {
    if (status.phase == Phase::kStopping || status.phase == Phase::kStopped) {
      // §8.3: the fix of #4937 — a backup timeout finishes the disposal with a failure.
      if (ann(pod, kAnnTimedOut).find("backup") != std::string::npos &&
          read_disposal(pod).status != "finished") {
        (void)co_await mark_pod(instance, [](kube::Object& p) {
          p.meta.annotations[kAnnDisposalStatus] =
              encode_disposal({"finished", "timed out during backup"});
          return true;
        });
        co_return ReconcileResult::done();
      }
    } else if (!status.failure.empty() || timed_out) {
      if (!status.failure.empty() && !has_ann(pod, kAnnFailedBeforeStopping)) {
        (void)co_await mark_pod(instance, [](kube::Object& p) {
          p.meta.annotations[kAnnFailedBeforeStopping] = "true";
          return true;
        });
      }
      co_await delete_pod(instance, 30 * kSecondMs);
      co_return ReconcileResult::done();
    } else if (has_ann(pod, kAnnStoppedByRequest) && !deleting) {
      co_await delete_pod(
          instance, kube::int_field(pod.meta.annotations, kAnnStoppedByRequest, 30 * kSecondMs));
      co_return ReconcileResult::done();
    }
  }
  switch (status.phase) {
    case Phase::kCreating:
      if (!has_ann(pod, kAnnAlreadyInitializing) && !pod_node(pod).empty() &&
          container_running(pod)) {
        spawn_once(initializing_, instance, "init",
                   initialize(instance, pod_node(pod), pod.meta.labels.at(kLabelWorkspaceId)));
      }
      break;
    case Phase::kInitializing:
      // monitor.go actOnPodEvent INITIALIZING (@ c8c4c3bda92c :338-352, @ 724ed7a92a^ :337-356):
      // a goroutine runs waitForWorkspaceReady; probeWorkspaceReady's probeMap keeps one probe
      // per pod. Later events do not matter to it (M11).
      spawn_once(probing_, instance, "probe", wait_for_workspace_ready(instance, pod_node(pod)));
      break;
    case Phase::kRunning:
      // RUNNING implies no gitpod/never-ready now (status_from_pod): the finalizer era's removal
      // on RUNNING (@ c8c4c3bda92c :363-370) is for headless pods only, which are not modelled.
      // Every RUNNING event marks the pod, and markWorkspace Updates whether or not the mark
      // changed anything (annotations.go Update after Apply): one Update per event, a Conflict
      // source while the cache lags. PLIS era (monitor.go @ 724ed7a92a^ actOnPodEvent and
      // @ 08774bd177^): deleteMark(TraceIDAnnotation); finalizer era (@ c8c4c3bda92c):
      // addMark(nodeNameAnnotation, NodeName()). A failure is only logged.
      if (plis_era()) {
        (void)co_await mark_pod(instance, [](kube::Object& p) {
          p.meta.annotations.erase(kAnnTraceId);
          return true;
        });
      } else {
        // Named, not a temporary inside the co_await expression (g++ 12, sim/kube/README.md).
        const std::string node = pod_node(pod);
        std::function<bool(kube::Object&)> mark_node = [node](kube::Object& p) {
          p.meta.annotations[kAnnNodeName] = node;
          return true;
        };
        (void)co_await mark_pod(instance, mark_node);
      }
      break;
    case Phase::kStopping:
      if (!plis_era()) co_return co_await handle_stopping_pod(instance, pod, status);
      break;
    case Phase::kStopped:
      if (!plis_era() && kube::has_finalizer(pod, kFinalizer)) {
        (void)co_await mark_pod(instance, [](kube::Object& p) {
          p.meta.finalizers = kube::without_finalizer(p.meta.finalizers, kFinalizer);
          return true;
        });
      }
      break;
    default:
      break;
  }
  co_return ReconcileResult::done();
}

// §8.3 STOPPING (finalizer era).
Task<ReconcileResult> Mk1Manager::handle_stopping_pod(const std::string& instance,
                                                      const kube::Object& pod,
                                                      const PodStatus& status) {
  WSIM_ASSERT(!plis_era());                       // §8.3: the finalizer era's STOPPING path.
  WSIM_ASSERT(status.phase == Phase::kStopping);  // handle_pod routes only STOPPING here.
  if (!pod_deleting(pod)) {
    co_await delete_pod(instance, 30 * kSecondMs);
    co_return ReconcileResult::done();
  }
  bool terminated = !container_running(pod);
  const std::string node = pod_node(pod);
  if (!node.empty()) {
    kube::Result<kube::Object> n = co_await client_.get(kube::ObjectRef{"Node", "", node});
    if (n.status.is(kube::Code::kNotFound)) terminated = true;
  }
  if (!terminated || read_disposal(pod).status == "finished") co_return ReconcileResult::done();
  const bool never_ready = has_ann(pod, kAnnNeverReady);
  if ((has_ann(pod, kAnnFailedBeforeStopping) && never_ready) || has_ann(pod, kAnnAbortRequest)) {
    // #7836 / abort: no backup, remove the finalizer.
    (void)co_await mark_pod(instance, [](kube::Object& p) {
      if (p.meta.annotations.count(kAnnExplicitFail) == 0 &&
          p.meta.annotations.count(kAnnAbortRequest) == 0) {
        p.meta.annotations[kAnnExplicitFail] = "failed before it was ready";
      }
      p.meta.finalizers = kube::without_finalizer(p.meta.finalizers, kFinalizer);
      return true;
    });
    co_return ReconcileResult::done();
  }
  spawn_once(finalizing_, instance, "finalize", finalize_pod(instance, node, status.ever_ready));
  co_return ReconcileResult::done();
}

// §7.7 steps 3–6 (PLIS era, the pod is gone).
Task<ReconcileResult> Mk1Manager::handle_plis_only(const std::string& instance,
                                                   const kube::Object& cm) {
  WSIM_ASSERT(plis_era());
  WSIM_ASSERT(!instance.empty());
  const std::optional<Plis> plis = read_plis(cm);
  if (!plis.has_value() || plis->last_pod_phase.empty()) {
    co_return ReconcileResult::done();  // errNoPLIS: the status cannot be computed.
  }
  // onConfigMapEvent tells the subscribers before acting (monitor.go @ 724ed7a92a^ :554-571): the
  // PLIS's last pod status, STOPPED once the final backup is complete and the pod gone
  // (status.go extractStatusFromPLIS :901-914).
  publish_status(instance,
                 plis->final_backup_complete ? phase_name(Phase::kStopped) : plis->last_pod_phase);
  if (plis->final_backup_complete || has_ann(cm, kAnnTimedOut)) {
    // STOPPED (pod gone ∧ finalBackupComplete), or a Stopping timeout: delete the PLIS.
    co_await delete_plis(instance);
    co_return ReconcileResult::done();
  }
  if (plis->last_pod_phase == phase_name(Phase::kStopping)) {
    spawn_once(finalizing_, instance, "finalize", finalize_plis(instance));
  }
  co_return ReconcileResult::done();
}

Task<void> Mk1Manager::initialize(std::string instance, std::string node,
                                  std::string workspace_id) {
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT(!workspace_id.empty());  // The pod's workspace label names the content.
  WsDaemon* daemon = world_.daemon(node);
  RpcReply reply{RpcCode::kUnavailable, "no ws-daemon"};
  if (daemon != nullptr) reply = co_await daemon->init_workspace(instance, workspace_id);
  if (!reply.ok()) {
    (void)co_await mark_pod(instance, [&](kube::Object& p) {
      p.meta.annotations[kAnnExplicitFail] = "cannot initialize workspace: " + reply.message;
      p.meta.annotations[kAnnFailedBeforeStopping] = "true";
      return true;
    });
  } else {
    (void)co_await mark_pod(instance, [](kube::Object& p) {
      p.meta.annotations[kAnnAlreadyInitializing] = "true";
      return true;
    });
  }
  // spawn_once registered this goroutine; a stop() would have cancelled it before this point.
  WSIM_ASSERT_EQ(initializing_.erase(instance), 1u);
}

// monitor.go waitForWorkspaceReady and probeWorkspaceReady (@ c8c4c3bda92c :611-781,
// @ 724ed7a92a^ :746-881, probe.go WorkspaceReadyProbe.Run). The probe GETs the workspace URL's
// /_supervisor/v1/status/ide/wait/true through ws-proxy every RetryDelay (500 ms) until it
// answers ok; here [reconstructed]: the pod is running and ready (the IDE Service routes to
// ready pods only). The probe stops when the workspace stops (probeMap's cancel), and in the
// finalizer era after 30 minutes (context.WithTimeout): then nothing is marked ("we'll clean the
// dangling workspace when it times out"). After the probe: WaitForInit on ws-daemon (blocks
// until content init is done; [simplified] a poll of the node's session), then
// markWorkspace(deleteMark(never-ready)); an error fails the workspace (explicitFail; PLIS era
// markWorkspace adds failedBeforeStopping with it, annotations.go @ 724ed7a92a^ :96-101).
Task<void> Mk1Manager::wait_for_workspace_ready(std::string instance, std::string node) {
  WSIM_ASSERT(!instance.empty());
  WSIM_ASSERT_GT(options_.daemon_retry_ms, 0);  // The WaitForInit poll below lets time pass.
  const kube::ObjectRef ref{"Pod", kNamespace, pod_name(instance)};
  const TimeMs until_ms = world_.sim().now_ms() + 30 * kMinuteMs;
  bool ready = false;
  while (true) {
    const kube::Object* pod = world_.api().peek(ref);
    if (pod == nullptr || pod_deleting(*pod)) break;
    if (!plis_era() && world_.sim().now_ms() >= until_ms) break;
    if (container_running(*pod) && pod->status_or("ready", "") == "true") {
      ready = true;
      break;
    }
    co_await world_.sim().loop().sleep(500);
  }
  WSIM_ASSERT_EQ(probing_.erase(instance), 1u);  // probeMap.Delete once the probe is done.
  if (!ready) co_return;                         // WorkspaceProbeStopped.
  std::string error;
  while (error.empty()) {
    const kube::Object* pod = world_.api().peek(ref);
    if (pod == nullptr || pod_deleting(*pod)) co_return;  // WaitForInit's context ends.
    const Session* session = world_.content().session(node, instance);
    if (world_.daemon(node) == nullptr) {
      error = "cannot connect to workspace daemon";
    } else if (session != nullptr && session->initialized) {
      break;
    }
    if (error.empty()) co_await world_.sim().loop().sleep(options_.daemon_retry_ms);
  }
  if (error.empty()) {
    const bool marked = co_await mark_pod(instance, [](kube::Object& p) {
      p.meta.annotations.erase(kAnnNeverReady);
      return true;  // markWorkspace Updates even if the fetched pod had lost the mark.
    });
    if (marked) co_return;
    error = "cannot workspace: cannot remove never-ready";
  }
  const bool plis = plis_era();
  // Named, not a temporary inside the co_await expression (g++ 12, sim/kube/README.md).
  std::function<bool(kube::Object&)> fail = [error, plis](kube::Object& p) {
    p.meta.annotations[kAnnExplicitFail] = error;
    if (plis) p.meta.annotations[kAnnFailedBeforeStopping] = "true";
    return true;
  };
  (void)co_await mark_pod(instance, fail);
}

// §7.7 step 4.
Task<void> Mk1Manager::finalize_plis(std::string instance) {
  WSIM_ASSERT(plis_era());
  WSIM_ASSERT_GT(options_.daemon_attempts, 0);
  std::optional<kube::Object> cm =
      configmaps_ ? configmaps_->get(kNamespace, plis_name(instance)) : std::nullopt;
  const Plis plis = cm.has_value() ? read_plis(*cm).value_or(Plis{}) : Plis{};
  const bool backup = plis.last_pod_ever_ready;
  std::string failure;
  if (backup || !plis.host_ip.empty()) {
    RpcReply reply{RpcCode::kUnavailable, "ws-daemon unreachable"};
    for (int attempt = 0; attempt < options_.daemon_attempts; ++attempt) {
      WsDaemon* daemon = world_.daemon(plis.host_ip);
      if (daemon != nullptr) reply = co_await daemon->dispose_workspace(instance, backup);
      if (daemon == nullptr) reply = RpcReply{RpcCode::kUnavailable, "ws-daemon unreachable"};
      if (reply.code != RpcCode::kUnavailable) break;
      co_await world_.sim().loop().sleep(options_.daemon_retry_ms);
    }
    if (!reply.ok()) {
      failure = std::string("last backup failed: ") + rpc_code_name(reply.code) + " " +
                reply.message + ". Please contact support if you need the workspace data.";
    }
  }
  world_.sim().record(kActor, "finalize", instance, failure.empty() ? "ok" : "failed", failure);
  (void)co_await patch_plis(instance, [&](Plis& p) {
    p.final_backup_complete = true;
    p.final_backup_failure = failure;
    return true;
  });
  WSIM_ASSERT_EQ(finalizing_.erase(instance), 1u);  // Registered by spawn_once.
}

// §8.4 (finalizer era).
Task<void> Mk1Manager::finalize_pod(std::string instance, std::string node, bool backup) {
  WSIM_ASSERT(!plis_era());
  WSIM_ASSERT_GT(options_.daemon_attempts, 0);  // At least one DisposeWorkspace attempt.
  (void)co_await mark_pod(instance, [](kube::Object& p) {
    p.meta.annotations[kAnnDisposalStatus] = encode_disposal({"started", ""});
    return true;
  });
  RpcReply reply{RpcCode::kUnavailable, "ws-daemon unreachable"};
  for (int attempt = 0; attempt < options_.daemon_attempts; ++attempt) {
    WsDaemon* daemon = nullptr;
    // Poll up to 1 min for a ready ws-daemon on the node.
    for (int poll = 0; poll < 12; ++poll) {
      daemon = world_.daemon(node);
      if (daemon != nullptr && daemon->up()) break;
      daemon = nullptr;
      co_await world_.sim().loop().sleep(5 * kSecondMs);
    }
    // No conditional expressions around co_await: g++ 12 mis-destroys their temporaries.
    if (daemon == nullptr) {
      reply = RpcReply{RpcCode::kUnavailable, "ws-daemon unreachable"};
    } else {
      reply = co_await daemon->dispose_workspace(instance, backup);
    }
    if (reply.code == RpcCode::kNotFound) {
      // Assumes a previous finalization already wrote the status (§8.4): nothing is written.
      world_.sim().record(kActor, "finalize", instance, "NotFound", "no disposal status written");
      WSIM_ASSERT_EQ(finalizing_.erase(instance), 1u);
      co_return;
    }
    if (reply.code != RpcCode::kUnavailable) break;
    (void)co_await mark_pod(instance, [](kube::Object& p) {
      p.meta.annotations[kAnnDisposalStatus] = encode_disposal({"retrying", ""});
      return true;
    });
    co_await world_.sim().loop().sleep(options_.daemon_retry_ms);
  }
  const std::string failure =
      reply.ok() ? "" : std::string(rpc_code_name(reply.code)) + ": " + reply.message;
  world_.sim().record(kActor, "finalize", instance, failure.empty() ? "ok" : "failed", failure);
  (void)co_await mark_pod(instance, [&](kube::Object& p) {
    p.meta.annotations[kAnnDisposalStatus] = encode_disposal({"finished", failure});
    return true;
  });
  WSIM_ASSERT_EQ(finalizing_.erase(instance), 1u);
}

Task<void> Mk1Manager::housekeeping() {
  co_await wait_for_caches();
  WSIM_ASSERT_GT(options_.housekeeping_ms, 0);  // A zero tick would never let time pass.
  while (true) {
    co_await world_.sim().loop().sleep(options_.housekeeping_ms);
    co_await housekeep_once();
  }
}

Task<void> Mk1Manager::housekeep_once() {
  if (!pods_ || !configmaps_ || maintenance_) co_return;
  const TimeMs now_ms = world_.sim().now_ms();
  if (direct_reads()) {
    WSIM_ASSERT(plis_era());  // mk1-plis-direct is a PLIS-era manager: housekeep_plis below.
    // monitor.go @ 08774bd177^ markTimedoutWorkspaces / deleteDanglingPodLifecycleIndependentState:
    // Lists from the API server; a failed List skips that part of the round.
    kube::Result<std::vector<kube::Object>> pods =
        co_await client_.reader().list("Pod", kNamespace);
    if (pods.ok()) {
      for (const kube::Object& pod : pods.value) co_await housekeep_pod(pod, now_ms);
    }
    kube::Result<std::vector<kube::Object>> gc_pods =
        co_await client_.reader().list("Pod", kNamespace);
    if (!gc_pods.ok()) co_return;
    kube::Result<std::vector<kube::Object>> cms =
        co_await client_.reader().list("ConfigMap", kNamespace);
    if (!cms.ok()) co_return;
    std::set<std::string> with_pod;
    for (const kube::Object& pod : gc_pods.value) {
      if (has_ann(pod, kAnnId)) with_pod.insert(ann(pod, kAnnId));
    }
    for (const kube::Object& cm : cms.value) {
      co_await housekeep_plis(cm, with_pod.count(ann(cm, kAnnId)) > 0, now_ms);
    }
    co_return;
  }
  // Snapshots of const views (the cache may change while a mark is in flight), not copies.
  for (const kube::Informer::ObjectView& view : pods_->list_shared()) {
    co_await housekeep_pod(*view, now_ms);
  }
  if (!plis_era()) co_return;
  for (const kube::Informer::ObjectView& view : configmaps_->list_shared()) {
    const kube::Object& cm = *view;
    const bool pod_exists =
        has_ann(cm, kAnnId) && pods_->get_shared(kNamespace, pod_name(ann(cm, kAnnId))) != nullptr;
    co_await housekeep_plis(cm, pod_exists, now_ms);
  }
}

Task<void> Mk1Manager::housekeep_pod(const kube::Object& pod, TimeMs now_ms) {
  if (!has_ann(pod, kAnnId) || has_ann(pod, kAnnTimedOut)) co_return;  // B14: already timed out.
  const std::string instance = ann(pod, kAnnId);
  WSIM_ASSERT(!instance.empty());  // start_workspace writes gitpod/id = the instance.
  const PodStatus status = status_from_pod(pod, !plis_era());
  std::string reason;
  if (status.phase == Phase::kRunning) {
    auto it = activity_ms_.find(instance);
    const TimeMs last_ms = it == activity_ms_.end() || it->second == 0 ? now_ms : it->second;
    if (it == activity_ms_.end() || it->second == 0) activity_ms_[instance] = now_ms;
    if (now_ms >= last_ms + options_.regular_timeout_ms) reason = "inactivity";
  } else if (status.phase == Phase::kPending) {
    // status.go isWorkspaceTimedOut (@ 724ed7a92a^ :772, @ c8c4c3bda92c :782): PENDING counts
    // Timeouts.Initialization from the pod's creation.
    if (now_ms >= pod.meta.creation_ms + options_.initialization_timeout_ms) {
      reason = "initialization";
    }
  } else if (status.phase == Phase::kCreating || status.phase == Phase::kInitializing) {
    // status.go isWorkspaceTimedOut (@ 724ed7a92a^ :775-783): INITIALIZING and CREATING count
    // Timeouts.TotalStartup from the pod's creation.
    if (now_ms >= pod.meta.creation_ms + options_.startup_timeout_ms) reason = "startup";
  } else if (!plis_era() && status.phase == Phase::kStopping && pod.meta.deletion_ms.has_value() &&
             now_ms >= *pod.meta.deletion_ms + options_.content_finalization_ms) {
    // Finalizer era only (#4937). In the PLIS era a pod in STOPPING never times out: "we leave
    // the stopping timeout to the PLIS branch" (status.go @ 724ed7a92a^ :813, @ 08774bd177^ :813).
    reason = "backup";
  }
  if (reason.empty()) co_return;
  (void)co_await mark_pod(instance, [&](kube::Object& p) {
    p.meta.annotations[kAnnTimedOut] = "workspace timed out: " + reason;
    return true;
  });
}

Task<void> Mk1Manager::housekeep_plis(const kube::Object& cm, bool pod_exists, TimeMs now_ms) {
  WSIM_ASSERT(plis_era());  // PLIS ConfigMaps exist in the PLIS era only.
  if (!has_ann(cm, kAnnId) || cm.meta.deletion_ms.has_value() || pod_exists) co_return;
  const std::string instance = ann(cm, kAnnId);
  WSIM_ASSERT(!instance.empty());
  const Plis plis = read_plis(cm).value_or(Plis{});
  const TimeMs since_ms = plis.stopping_since_ms.value_or(cm.meta.creation_ms);
  if (now_ms >= since_ms + options_.lonely_plis_ms) {
    co_await delete_plis(instance);  // Dangling PLIS GC, regardless of backup state.
  } else if (plis.stopping_since_ms.has_value() && !has_ann(cm, kAnnTimedOut) &&
             now_ms >= *plis.stopping_since_ms + options_.stopping_timeout_ms) {
    std::map<std::string, std::optional<std::string>> marks;
    marks[kAnnTimedOut] = "backup";
    (void)co_await patch_plis(
        instance, [](Plis&) { return false; }, std::move(marks));
  }
}

}  // namespace wsim::gitpod::mk1
