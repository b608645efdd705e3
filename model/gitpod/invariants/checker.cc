// Not a port: see checker.h.
#include "model/gitpod/invariants/checker.h"

#include <algorithm>
#include <sstream>

#include "model/gitpod/conditions.h"
#include "model/gitpod/invariants/catalog.h"
#include "model/gitpod/invariants/markers.h"
#include "model/gitpod/mk2/actions.h"
#include "model/gitpod/mk2/status.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"

namespace wsim::gitpod {

Checker::Checker(GitpodWorld& world) : world_(world), versions_(world.versions()) {
  Probes& p = world.sim().probes();
  probes_.rejected_before_ready =
      p.declare("gitpod.rejected_before_ready", "kubelet rejected a pod of a starting workspace");
  probes_.rejected_after_ready = p.declare("gitpod.rejected_after_ready",
                                           "kubelet rejected the pod of an ever-ready workspace");
  probes_.recreated =
      p.declare("gitpod.recreated", "a rejected workspace was reset for re-creation");
  probes_.stop_in_rejection_window = p.declare(
      "gitpod.stop_in_rejection_window", "StopWorkspace landed while PodRejected=True (B3 window)");
  probes_.wiped = p.declare("gitpod.wiped", "ws-daemon wrote StateWiped");
  probes_.backed_up = p.declare("gitpod.backed_up", "ws-daemon wrote BackupComplete");
  probes_.node_disappeared = p.declare("gitpod.node_disappeared", "NodeDisappeared was written");
  probes_.acknowledged_loss = p.declare("gitpod.acknowledged_loss", "content lost, visibly");
  probes_.silent_loss = p.declare("gitpod.silent_loss", "content lost silently");
  ledger_ = std::make_unique<DataLedger>(
      world.content(), [this](const std::string& instance) { return managed(instance); });
}

Checker::~Checker() = default;

void Checker::start() {
  kube::ApiServer& api = world_.api();
  api.subscribe(kWorkspaceKind, [this](const kube::WatchEvent& e) { on_workspace(e); });
  api.subscribe("Pod", [this](const kube::WatchEvent& e) { on_pod(e); });
  api.subscribe("ConfigMap", [this](const kube::WatchEvent& e) { on_configmap(e); });
  world_.content().set_observer(
      [this](DestroyCause cause, const std::string& node, const std::string& instance) {
        on_destroy(cause, node, instance);
      });
}

void Checker::violate(const char* id, const std::string& object, std::string message,
                      std::vector<std::string> related) {
  WSIM_ASSERT(id != nullptr);
  WSIM_ASSERT(!object.empty());
  if (!reported_.insert(std::string(id) + " " + object).second) return;
  pending_.push_back(run::Violation{id, object, std::move(message), std::move(related)});
  // Each queued violation was reported once; taking one only removes.
  WSIM_ASSERT_LE(pending_.size(), reported_.size());
}

bool Checker::managed(const std::string& instance) const {
  WSIM_ASSERT(!instance.empty());
  kube::ApiServer& api = world_.api();
  if (api.peek(kube::ObjectRef{kWorkspaceKind, kNamespace, instance}) != nullptr) return true;
  if (api.peek(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)}) != nullptr) return true;
  return api.peek(kube::ObjectRef{"ConfigMap", kNamespace, plis_name(instance)}) != nullptr;
}

std::string Checker::instance_of_pod(const kube::Object& pod) const {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  auto it = pod.meta.labels.find(kLabelInstanceId);
  return it == pod.meta.labels.end() ? std::string() : it->second;
}

void Checker::user_stop_succeeded(const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  instances_[instance].stop_succeeded = true;
}

void Checker::user_started(const std::string& instance) {
  WSIM_ASSERT(!instance.empty());
  (void)instances_[instance];
}

const kube::Object& Checker::Instance::last_cr() const {
  static const kube::Object kNone;  // What `last` was before it was a pointer: empty.
  return last ? *last : kNone;
}

void Checker::set_workspace_id(const std::string& instance, Instance& inst, const std::string& id) {
  if (inst.workspace_id == id) return;
  if (!inst.workspace_id.empty()) {
    auto old = instances_of_workspace_.find(inst.workspace_id);
    WSIM_ASSERT(old != instances_of_workspace_.end());
    WSIM_ASSERT_EQ(old->second.erase(instance), 1u);
    if (old->second.empty()) instances_of_workspace_.erase(old);
  }
  inst.workspace_id = id;
  if (!id.empty()) instances_of_workspace_[id].insert(instance);
  if (!id.empty()) WSIM_ASSERT_EQ(instances_of_workspace_[id].count(instance), 1u);
}

void Checker::user_marked_active(const std::string& instance, TimeMs now_ms) {
  Instance& inst = instances_[instance];
  if (!inst.last_active_ms.has_value() || *inst.last_active_ms < now_ms) {
    inst.last_active_ms = now_ms;
  }
  WSIM_ASSERT_GE(*inst.last_active_ms, now_ms);  // The latest activity is kept.
}

void Checker::user_wrote(const std::string& workspace_id, const std::string& instance) {
  WSIM_ASSERT(!workspace_id.empty());
  WSIM_ASSERT(!instance.empty());
  set_workspace_id(instance, instances_[instance], workspace_id);
  ledger_->on_write(workspace_id, instance);
}

// --- Workspace CR events (mk2). ---

void Checker::on_workspace(const kube::WatchEvent& event) {
  const kube::Object& ws = event.object;
  const std::string& name = ws.meta.name;
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));  // Subscribed to Workspace events only.
  Instance& inst = instances_[name];
  set_workspace_id(name, inst, workspace_id(ws));
  if (event.type == kube::WatchEventType::kDeleted) {
    // A CR being deleted goes with the write that removes its last finalizer.
    if (inst.had_finalizer && versions_.mk2()) check_secrets_gone(name);
    inst.had_finalizer = false;
    inst.cr_exists = false;
    inst.phase = "";
    // `last` is read only while the CR exists (instance names are unique: a deleted CR is never
    // created again); a run at scale keeps every finished instance, not its last CR.
    inst.last.reset();
    ledger_->on_unmanaged(name);
    check_single_instance(inst.workspace_id);
    return;
  }
  inst.cr_exists = true;
  // S3.
  if (cond_present(ws, kCondStateWiped) && !cond_true(ws, kCondPodRejected)) {
    violate(kS3, name, "StateWiped written while PodRejected is not True");
  }
  if (cond_true(ws, kCondPodRejected) && cond_true(ws, kCondEverReady) &&
      !cond_true(inst.last_cr(), kCondPodRejected)) {
    violate(kS3, name, "PodRejected=True set on an ever-ready workspace (it will be wiped)");
  }
  // S8 (per incarnation: the reset clears the conditions).
  if (cond_present(ws, kCondStateWiped) && cond_true(ws, kCondBackupComplete)) {
    violate(kS8, name, "both a backup and a wipe for one pod incarnation");
  }
  // S6.
  const bool has_finalizer = kube::has_finalizer(ws, kFinalizer);
  if (inst.had_finalizer && !has_finalizer && versions_.mk2()) {
    if (phase(ws) != kPhaseStopped || !inst.live_pods.empty()) {
      violate(kS6, name,
              "CR finalizer removed in phase " + phase(ws) + " with " +
                  std::to_string(inst.live_pods.size()) + " pod(s)");
    }
  }
  if (inst.had_finalizer && !has_finalizer && versions_.mk2()) check_secrets_gone(name);
  inst.had_finalizer = has_finalizer;
  // L6.
  if (maintenance_ && cond_true(ws, kCondTimeout) && !cond_true(inst.last_cr(), kCondTimeout)) {
    maintenance_timeouts_.push_back({kL6, name, "Timeout added while maintenance is on"});
  }
  if (cond_true(ws, kCondTimeout) && !cond_true(inst.last_cr(), kCondTimeout)) {
    check_timeout_deserved(name, inst, ws);
  }
  if (cond_true(ws, kCondTimeout)) inst.timed_out = true;
  if (cond_true(ws, kCondStoppedByRequest)) inst.stop_applied = true;
  Probes& probes = world_.sim().probes();
  auto newly = [&](const char* type) {
    return cond_true(ws, type) && !cond_true(inst.last_cr(), type);
  };
  probes.sometimes(newly(kCondStateWiped), probes_.wiped);
  probes.sometimes(newly(kCondBackupComplete), probes_.backed_up);
  probes.sometimes(newly(kCondNodeDisappeared), probes_.node_disappeared);
  probes.sometimes(newly(kCondStoppedByRequest) && cond_true(ws, kCondPodRejected),
                   probes_.stop_in_rejection_window);
  probes.sometimes(inst.phase == kPhaseStopped && phase(ws) == kPhasePending, probes_.recreated);
  if (phase(ws) != kPhaseStopped) {
    inst.stopped_disposed = false;
  } else if (inst.phase != kPhaseStopped && versions_.mk2()) {
    inst.stopped_disposed = mk2::is_disposal_finished(ws, versions_);
  }
  check_phase_transition(name, inst, ws);
  if (cond_true(ws, kCondBackupComplete) || cond_true(ws, kCondBackupFailure) ||
      cond_true(ws, kCondAborted) || cond_true(ws, kCondPodRejected)) {
    inst.disposal_authorized = true;
  }
  check_counters(name, inst, ws);
  for (const std::string& marker : visible_loss_markers(ws)) ledger_->on_marker(name, marker);
  inst.last = std::make_shared<const kube::Object>(ws);
  if (phase(ws) == kPhaseStopping && inst.phase != kPhaseStopping) {
    inst.stopping_since_ms = world_.sim().now_ms();
  }
  inst.phase = phase(ws);
  if (inst.phase == kPhaseRunning) inst.reached_running = true;
  // §3.4 step 5.4: a rejection surfaces as Failed "<reason>: Pod was rejected…".
  if (cond_true(ws, kCondFailed) &&
      cond_message(ws, kCondFailed).find("Pod was rejected") == std::string::npos) {
    inst.failed_otherwise = true;
  }
  if (inst.phase == kPhaseStopped && !cond_true(ws, kCondPodRejected)) {
    inst.stopped_nonrejected = true;
  }
  check_single_instance(inst.workspace_id);
}

// S7.
void Checker::check_phase_transition(const std::string& name, Instance& inst,
                                     const kube::Object& ws) {
  const std::string before = inst.phase;
  const std::string after = phase(ws);
  WSIM_ASSERT(inst.cr_exists);  // Judged on a CR write, never on its deletion.
  if (before.empty() || before == after) return;
  if (before == kPhaseStopped) {
    const kube::Object& prev = inst.last_cr();
    mk2::ActionInputs in;
    in.pod_recreation_backoff_ms = world_.settings().pod_recreation_backoff_ms;
    const std::optional<TimeMs> deleted_ms = status_time(prev, kStatusPodDeletionMs);
    const bool reset_edge = after == kPhasePending && cond_true(prev, kCondPodRejected) &&
                            cond_present(prev, kCondStateWiped) && deleted_ms.has_value() &&
                            world_.sim().now_ms() >= *deleted_ms + mk2::recreation_backoff_ms(in);
    if (!reset_edge) violate(kS7, name, "Stopped → " + after);
    if (reset_edge) inst.disposal_authorized = false;
    return;
  }
  if (before == kPhaseStopping) {
    if (after != kPhaseStopped) violate(kS7, name, "Stopping → " + after);
    return;
  }
  if (after == kPhaseStopped && status_int(ws, kStatusPodStarts, 0) > 0) {
    violate(kS7, name, before + " → Stopped without passing Stopping");
  }
}

// S4 / §6.4, on every CR write.
void Checker::check_counters(const std::string& name, const Instance& inst,
                             const kube::Object& ws) {
  if (!versions_.mk2()) return;
  WSIM_ASSERT(!name.empty());
  WSIM_ASSERT_GE(inst.pods_created, 0);  // The checker's own count of pod ADDED events.
  const std::int64_t starts = status_int(ws, kStatusPodStarts, 0);
  const std::int64_t recreated = status_int(ws, kStatusPodRecreated, 0);
  // The facts of a message, built only for a violation (this runs on every Workspace event).
  const auto facts = [&] {
    std::ostringstream out;
    out << "podStarts=" << starts << " podRecreated=" << recreated
        << " podsCreated=" << inst.pods_created;
    return out.str();
  };
  if (starts > inst.pods_created) violate(kS4, name, "podStarts exceeds pods created: " + facts());
  if (inst.pods_created > starts + 1) {
    violate(kS4, name, "pods created exceed podStarts+1: " + facts());
  }
  if (!versions_.has(Fix::k20243)) return;
  if (starts >= 1 && (starts - recreated < 0 || starts - recreated > 1)) {
    violate(kS4, name, "podStarts-podRecreated not in {0,1}: " + facts());
  }
  if (recreated > world_.settings().pod_recreation_max_retries + 1) {
    violate(kS4, name, "podRecreated exceeds max+1: " + facts());
  }
}

// S9.
void Checker::check_single_instance(const std::string& workspace_id) {
  if (workspace_id.empty() || !versions_.mk2()) return;
  auto of_workspace = instances_of_workspace_.find(workspace_id);
  if (of_workspace == instances_of_workspace_.end()) return;
  // The first two live instances (names not copied: this runs on every Workspace event).
  const std::string* live[2] = {nullptr, nullptr};
  for (const std::string& name : of_workspace->second) {  // In name order, like instances_.
    const Instance& inst = instances_.at(name);
    WSIM_ASSERT_EQ(inst.workspace_id, workspace_id);
    if (!inst.cr_exists || inst.phase == kPhaseStopped) continue;
    if (live[0] == nullptr) {
      live[0] = &name;
    } else if (live[1] == nullptr) {
      live[1] = &name;
    }
  }
  if (live[1] != nullptr) {
    WSIM_ASSERT_NE(*live[0], *live[1]);
    violate(kS9, workspace_id, "non-Stopped instances " + *live[0] + " and " + *live[1],
            {*live[0], *live[1]});
  }
}

// --- Pods. ---

void Checker::on_pod(const kube::WatchEvent& event) {
  const kube::Object& pod = event.object;
  const std::string instance = instance_of_pod(pod);
  if (instance.empty()) return;
  Instance& inst = instances_[instance];
  const std::string& uid = pod.meta.uid;
  WSIM_ASSERT(!uid.empty());
  if (event.type == kube::WatchEventType::kDeleted) {
    inst.live_pods.erase(uid);
    pod_finalizer_.erase(uid);
    if (!managed(instance)) ledger_->on_unmanaged(instance);
    return;
  }
  if (event.type == kube::WatchEventType::kAdded) {
    ++inst.pods_created;
    inst.live_pods.insert(uid);
    WSIM_ASSERT_GE(static_cast<std::size_t>(inst.pods_created), inst.live_pods.size());
    if (inst.live_pods.size() > 1) violate(kS1, instance, "two pods for one workspace");
    if (inst.stopped_nonrejected) {
      violate(kS5, instance, "pod " + pod.meta.name + " created for a Stopped workspace");
    }
    if (inst.stop_succeeded) ++inst.pods_after_stop;
    if (inst.cr_exists) check_counters(instance, inst, inst.last_cr());
  }
  // L4 counts rejections of a *start*: pods rejected before the workspace was ever ready (mk2:
  // EverReady; mk1: the never-ready annotation still on the pod).
  if (mk2::is_pod_rejected(pod)) {
    const kube::Object* ws =
        world_.api().peek(kube::ObjectRef{kWorkspaceKind, kNamespace, instance});
    const bool ever_ready =
        ws != nullptr ? cond_true(*ws, kCondEverReady)
                      : pod.meta.annotations.count(kAnnNeverReady) == 0 && !versions_.mk2();
    if (rejected_seen_.insert(uid).second) {
      if (!ever_ready) inst.rejected_pods.insert(uid);
      world_.sim().probes().hit(ever_ready ? probes_.rejected_after_ready
                                           : probes_.rejected_before_ready);
    }
  }
  for (const std::string& marker : visible_loss_markers(pod)) ledger_->on_marker(instance, marker);
  check_pod_finalizer_removed(pod);
}

// S10: ws-manager-mk2 removes the CR finalizer only after deleteWorkspaceSecrets succeeded
// (workspace_controller.go actOnStatus @ 4f45d02eac95, docs/fidelity.md G12): once the CR can go,
// nothing deletes the workspace's credentials any more. Judged against what ws-manager could
// know: deleteSecret reads through its Secret cache and takes NotFound there for done, so a secret
// its cache does not hold (the informer between watches, or the creation not delivered yet) is
// upstream's own leak (docs/mutants.md, sixth session), not a broken promise. A secret that is
// still stored and that ws-manager's watching Secret cache holds is.
void Checker::check_secrets_gone(const std::string& instance) {
  WSIM_ASSERT(versions_.mk2());  // The CR finalizer and its secrets are mk2's.
  kube::ApiServer& api = world_.api();
  std::vector<kube::ObjectRef> stored;
  for (const std::string& secret : {env_secret_name(instance), tokens_secret_name(instance)}) {
    const kube::ObjectRef ref{"Secret", kNamespace, secret};
    if (api.peek(ref) != nullptr) stored.push_back(ref);
  }
  if (stored.empty()) return;
  for (const kube::ApiServer::InformerCacheView& view : api.informer_caches()) {
    if (view.identity != "ws-manager" || view.kind != "Secret") continue;  // mk2's kActor.
    for (const auto& [ref, rv] : view.cache) {
      if (std::find(stored.begin(), stored.end(), ref) == stored.end()) continue;
      violate(kS10, instance,
              "CR finalizer removed while Secret " + ref.name +
                  " still exists and ws-manager's cache holds it");
      return;
    }
  }
}

// S11: Gitpod times a workspace out after its inactivity timeout (30 min by default, or the
// workspace's own) without user activity (timeout_controller.go isWorkspaceTimedOut @
// 4f45d02eac95: lastActivity + timeout < now; docs/fidelity.md G18). MarkActive writes
// lastActivity before it answers, so an answered MarkActive is activity the controller must
// honour. The slack covers the controller's check period and a retried Timeout write that was
// decided just before the activity landed (retry.RetryOnConflict re-applies, it does not re-check).
void Checker::check_timeout_deserved(const std::string& name, const Instance& inst,
                                     const kube::Object& ws) {
  constexpr DurationMs kSlackMs = kMinuteMs;
  if (inactivity_timeout_ms_ <= 0 || !versions_.mk2() || !inst.last_active_ms.has_value()) return;
  if (cond_message(ws, kCondTimeout).find("inactivity") == std::string::npos) return;
  const DurationMs custom_ms = kube::int_field(ws.spec, kSpecTimeoutMs, 0);
  const DurationMs timeout_ms = custom_ms > 0 ? custom_ms : inactivity_timeout_ms_;
  const TimeMs now_ms = world_.sim().now_ms();
  WSIM_ASSERT_GT(timeout_ms, 0);
  WSIM_ASSERT_LE(*inst.last_active_ms, now_ms);  // Recorded when MarkActive answered.
  if (now_ms + kSlackMs >= *inst.last_active_ms + timeout_ms) return;
  violate(kS11, name,
          "timed out for inactivity " + std::to_string((now_ms - *inst.last_active_ms) / 1000) +
              " s after an answered MarkActive (timeout " + std::to_string(timeout_ms / 1000) +
              " s)");
}

// S2 corollary (mk2): pod finalizer removed ⇒ phase Stopped ∧ disposal finished, now or when the
// CR entered Stopped (Instance::stopped_disposed; until 2026-11-26 only now, which took B11's late
// ContentReady on a Stopped CR for an unauthorized removal: hunt seed 22591 of the latest mk2).
void Checker::check_pod_finalizer_removed(const kube::Object& pod) {
  WSIM_ASSERT(!pod.meta.uid.empty());
  const bool has = kube::has_finalizer(pod, kFinalizer);
  auto [it, inserted] = pod_finalizer_.try_emplace(pod.meta.uid, has);
  const bool had = inserted ? has : it->second;
  it->second = has;
  if (!versions_.mk2() || !had || has) return;
  const std::string instance = instance_of_pod(pod);
  if (stripped_.count(instance) > 0) return;
  const kube::Object* ws = world_.api().peek(kube::ObjectRef{kWorkspaceKind, kNamespace, instance});
  if (ws == nullptr) return;
  const auto found = instances_.find(instance);
  const bool disposed_at_stop = found != instances_.end() && found->second.stopped_disposed;
  if (phase(*ws) != kPhaseStopped ||
      !(disposed_at_stop || mk2::is_disposal_finished(*ws, versions_))) {
    violate(kS2, instance,
            "pod finalizer removed in phase " + phase(*ws) + " before disposal finished");
  }
}

void Checker::on_configmap(const kube::WatchEvent& event) {
  const kube::Object& cm = event.object;
  WSIM_ASSERT_EQ(cm.kind, std::string("ConfigMap"));  // Subscribed to ConfigMap events only.
  if (cm.meta.namespace_ != kNamespace) return;
  auto id = cm.meta.annotations.find(kAnnId);
  if (id == cm.meta.annotations.end()) return;
  if (event.type == kube::WatchEventType::kDeleted) {
    if (!managed(id->second)) ledger_->on_unmanaged(id->second);
    return;
  }
  for (const std::string& marker : visible_loss_markers(cm)) ledger_->on_marker(id->second, marker);
}

// S2: ws-daemon destroys content only after an authorizing fact was recorded (mk2).
void Checker::on_destroy(DestroyCause cause, const std::string& node, const std::string& instance) {
  // node is "" for a backup overwritten in remote storage (ContentStore::upload).
  WSIM_ASSERT(!instance.empty());
  ledger_->on_destroy(cause, instance);
  if (!versions_.mk2()) return;
  if (cause != DestroyCause::kDaemonDelete && cause != DestroyCause::kDaemonWipe) return;
  if (!instances_[instance].disposal_authorized) {
    violate(kS2, instance,
            std::string(destroy_cause_name(cause)) + " on " + node +
                " before BackupComplete/BackupFailure/Aborted/PodRejected was recorded");
  }
}

std::optional<run::Violation> Checker::next_violation() {
  // Called after every event: an idle ledger has nothing to evaluate, and asking it inline costs
  // less than the call (docs/performance.md §13.1).
  const std::vector<DataLoss> losses =
      ledger_->idle() ? std::vector<DataLoss>() : ledger_->evaluate(world_.sim().now_ms());
  for (const DataLoss& loss : losses) {
    const std::string what = "version " + std::to_string(loss.lost_version) + " of " +
                             loss.workspace_id + " (written by " + loss.instance +
                             ") lost: " + loss.cause;
    world_.sim().probes().hit(loss.acknowledged ? probes_.acknowledged_loss : probes_.silent_loss);
    // The loss is reported on the workspace (the user's content) and names the instance that
    // wrote the lost version: a known bug already seen on that instance (ws-daemon deleting before
    // a backup condition was recorded, gitpod.S2) is the loss's cause (run/driver.h go-past).
    if (!loss.acknowledged) {
      violate(kNoSilentLoss, loss.workspace_id, what, {loss.instance});
    } else if (world_.settings().report_acknowledged_loss) {
      violate(kAcknowledgedLoss, loss.workspace_id, what + "; visible as " + loss.marker,
              {loss.instance});
    }
  }
  if (pending_.empty()) return std::nullopt;
  run::Violation v = pending_.front();
  pending_.pop_front();
  WSIM_ASSERT(!v.invariant_id.empty());  // Pairs with violate()'s checks.
  return v;
}

}  // namespace wsim::gitpod
