// The mk2 Workspace reconciler: gitpod-io/gitpod @ 4f45d02eac95
// components/ws-manager-mk2/controllers/workspace_controller.go (docs/fidelity.md G1–G14)
// (docs/systems/gitpod.md §3.1, §3.5). Every API call is an interleaving point.
#include "model/gitpod/conditions.h"
#include "model/gitpod/mk2/manager.h"
#include "model/gitpod/mk2/status.h"
#include "model/gitpod/names.h"
#include "model/gitpod/pod_view.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/controllers/controller_util.h"
#include "sim/kube/retry.h"

namespace wsim::gitpod::mk2 {
namespace {

constexpr DurationMs kConflictRequeueMs = 100;  // §3.1 step 5.

kube::ObjectRef workspace_ref(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  return kube::ObjectRef{kWorkspaceKind, kNamespace, name};
}

}  // namespace

Task<void> Mk2Manager::workspace_worker(std::shared_ptr<WorkQueue> queue) {
  co_await wait_for_caches();
  while (true) {
    std::optional<std::string> key = co_await queue->next();
    if (!key.has_value()) co_return;
    WSIM_ASSERT(!key->empty());
    const ReconcileResult result = co_await reconcile(*key);
    queue->finish(*key, result);
  }
}

// §3.1.
Task<ReconcileResult> Mk2Manager::reconcile(std::string name) {
  WSIM_ASSERT(!name.empty());
  if (!workspaces_) co_return ReconcileResult::done();
  std::optional<kube::Object> cached = workspaces_->get(kNamespace, name);
  if (!cached.has_value()) co_return ReconcileResult::done();
  kube::Object ws = std::move(*cached);
  WSIM_ASSERT_EQ(ws.meta.name, name);
  WSIM_ASSERT(versions_.mk2());
  const std::vector<kube::Object> pods = owned_pods(name);

  StatusInputs in;
  in.versions = &versions_;
  in.maintenance = maintenance_;
  if (pods.size() == 1 && !pod_node(pods.front()).empty()) {
    kube::Result<kube::Object> node =
        co_await client_.get(kube::ObjectRef{"Node", "", pod_node(pods.front())});
    in.node_missing = node.status.is(kube::Code::kNotFound);
  }
  in.now_ms = world_.sim().now_ms();
  update_workspace_status(ws, pods, in);

  if (!versions_.has(Fix::k16622)) {
    // B1 (a9810d6a0aa7^ Reconcile): act first, then write the status; PodStarts++ lives in
    // memory until then. An actOnStatus error returns at once (no status write); any status
    // write error, Conflict included, is Requeue with the error (rate-limited); on success
    // actOnStatus's result is dropped.
    const ReconcileResult result = co_await act_on_status(ws, pods);
    if (result.error) co_return result;
    kube::Result<kube::Object> written = co_await client_.update(ws, kube::Subresource::kStatus);
    if (!written.ok()) co_return ReconcileResult::failed();
    co_return ReconcileResult::done();
  }
  // Always written, changed or not: a stale cache shows up here as a Conflict.
  kube::Result<kube::Object> written = co_await client_.update(ws, kube::Subresource::kStatus);
  if (written.status.is(kube::Code::kConflict))
    co_return ReconcileResult::after(kConflictRequeueMs);
  if (!written.ok()) co_return ReconcileResult::failed();
  WSIM_ASSERT_EQ(written.value.meta.name, name);
  ws.meta.resource_version = written.value.meta.resource_version;
  co_return co_await act_on_status(ws, pods);
}

// §3.5.
Task<ReconcileResult> Mk2Manager::act_on_status(kube::Object& ws,
                                                const std::vector<kube::Object>& pods) {
  WSIM_ASSERT_EQ(ws.kind, std::string(kWorkspaceKind));
  const Action action = decide_action(ws, pods, action_inputs());
  switch (action.kind) {
    case ActionKind::kNothing:
      co_return ReconcileResult::done();
    case ActionKind::kCreatePod:
      co_return co_await create_pod(ws);
    case ActionKind::kRecreationLimit:
      // B6: the comment expects the next reconcile to take A3, but this is in memory only.
      set_cond(
          ws, kCondPodRejected, false, "",
          "Pod reached maximum recreations " + status_str(ws, kStatusPodRecreated) + ", failing",
          world_.sim().now_ms());
      co_return ReconcileResult::again();
    case ActionKind::kRequeueAfter:
      co_return ReconcileResult::after(action.requeue_after_ms);
    case ActionKind::kResetForRecreation:
      co_return co_await reset_for_recreation_and_write(ws);
    case ActionKind::kFinalizeWorkspace:
      co_return co_await finalize_workspace(ws);
    case ActionKind::kDeletePod:
      WSIM_ASSERT(!pods.empty());  // decide_action deletes only a pod it was given.
      co_return co_await delete_pod(pods.front(), action.grace_ms);
    case ActionKind::kDeleteSecrets:
      (void)co_await delete_secrets(ws.meta.name);  // Running: an error is only logged.
      co_return ReconcileResult::done();
    case ActionKind::kRemovePodFinalizer:
      WSIM_ASSERT(!pods.empty());
      co_return co_await remove_pod_finalizer(pods.front());
  }
  WSIM_ASSERT_MSG(false, "unhandled action " << static_cast<int>(action.kind));
  co_return ReconcileResult::done();
}

Task<ReconcileResult> Mk2Manager::create_pod(kube::Object& ws) {
  WSIM_ASSERT(!ws.meta.uid.empty());  // The pod's owner reference names the CR by uid.
  kube::Object pod = world_.workspace_pod_template(ws.meta.name, workspace_id(ws));
  pod.meta.finalizers.push_back(kFinalizer);
  kube::OwnerReference owner;
  owner.kind = kWorkspaceKind;
  owner.name = ws.meta.name;
  owner.uid = ws.meta.uid;
  owner.controller = true;
  owner.block_owner_deletion = true;
  pod.meta.owner_references.push_back(owner);
  // Paired with owned_pods: the owner index finds the pod under its CR's name.
  WSIM_ASSERT_EQ(pod_owner(pod), ws.meta.name);
  kube::Result<kube::Object> created = co_await client_.create(pod);
  world_.sim().record(kActor, "create-pod", ws.meta.name,
                      created.ok() ? "ok" : kube::code_name(created.status.code));
  // AlreadyExists counts as success without incrementing PodStarts (B2).
  if (created.status.is(kube::Code::kAlreadyExists)) co_return ReconcileResult::done();
  if (!created.ok()) co_return ReconcileResult::failed();
  const std::int64_t starts = status_int(ws, kStatusPodStarts, 0) + 1;
  WSIM_ASSERT_GE(starts, 1);
  if (!versions_.has(Fix::k16622)) {
    set_status_int(ws, kStatusPodStarts, starts);  // In memory; lost on a Conflict (B1).
    co_return ReconcileResult::done();
  }
  kube::MergePatch patch;
  patch.status[kStatusPodStarts] = std::to_string(starts);
  kube::Result<kube::Object> patched =
      co_await client_.patch(workspace_ref(ws.meta.name), patch, kube::Subresource::kStatus);
  if (!patched.ok()) co_return ReconcileResult::failed();  // No rollback (B2).
  co_return ReconcileResult::done();
}

Task<ReconcileResult> Mk2Manager::reset_for_recreation_and_write(kube::Object& ws) {
  WSIM_ASSERT(versions_.has(Fix::k20243));  // Re-creation exists since #20243 (decide_action).
  WSIM_ASSERT(phase(ws) == kPhaseStopped);  // A2: a Stopped, rejected workspace is reset.
  reset_for_recreation(ws, world_.sim().now_ms());
  kube::Result<kube::Object> written = co_await client_.update(ws, kube::Subresource::kStatus);
  world_.sim().record(kActor, "recreate", ws.meta.name,
                      written.ok() ? "ok" : kube::code_name(written.status.code),
                      "podRecreated=" + status_str(ws, kStatusPodRecreated));
  if (!written.ok()) co_return ReconcileResult::failed();
  co_return ReconcileResult::again();
}

// deleteSecret: wait.ExponentialBackoff{100 ms, ×1.5, jitter 0.2, 3 steps} of Get (cache;
// NotFound = done) then Delete (NotFound = done); false when the steps ran out.
Task<bool> Mk2Manager::delete_secret(std::string name) {
  WSIM_ASSERT(!name.empty());
  kube::Backoff backoff(3, 100, 1.5, 0.2);
  while (true) {
    kube::Result<kube::Object> got =
        co_await client_.get(kube::ObjectRef("Secret", kNamespace, name));
    if (got.status.is(kube::Code::kNotFound)) co_return true;
    if (got.ok()) {
      const kube::Status s = co_await client_.remove(kube::ObjectRef("Secret", kNamespace, name));
      if (s.ok() || s.is(kube::Code::kNotFound)) co_return true;
    }
    if (backoff.steps <= 1) co_return false;
    const DurationMs sleep_ms = kube::backoff_step(backoff, retry_stream_);
    co_await world_.sim().loop().sleep(sleep_ms);
  }
}

// deleteWorkspaceSecrets: both are attempted; false if either failed.
Task<bool> Mk2Manager::delete_secrets(const std::string& name) {
  WSIM_ASSERT(!name.empty());
  const bool env = co_await delete_secret(env_secret_name(name));
  const bool tokens = co_await delete_secret(tokens_secret_name(name));
  co_return env&& tokens;
}

// §3.5 A3.
Task<ReconcileResult> Mk2Manager::finalize_workspace(kube::Object& ws) {
  WSIM_ASSERT(phase(ws) == kPhaseStopped);  // §3.5 A3: only a Stopped workspace is finalized.
  // actOnStatus (0 pods, Stopped): a failed secret deletion returns the error before the CR
  // finalizer is removed.
  const bool secrets_deleted = co_await delete_secrets(ws.meta.name);
  if (!secrets_deleted) {
    world_.sim().record(kActor, "delete-secrets", ws.meta.name, "failed",
                        "CR finalizer kept until the secrets are gone");
    co_return ReconcileResult::failed();
  }
  if (kube::has_finalizer(ws, kFinalizer)) {
    kube::Object copy = ws;
    copy.meta.finalizers = kube::without_finalizer(copy.meta.finalizers, kFinalizer);
    WSIM_ASSERT(!kube::has_finalizer(copy, kFinalizer));
    kube::Result<kube::Object> updated = co_await client_.update(copy);
    if (updated.status.is(kube::Code::kNotFound)) co_return ReconcileResult::done();
    if (updated.status.is(kube::Code::kConflict))
      co_return ReconcileResult::after(kConflictRequeueMs);
    if (!updated.ok()) co_return ReconcileResult::failed();
  }
  // actOnStatus returns `ctrl.Result{}, client.IgnoreNotFound(err)` after the Delete: any other
  // error requeues the workspace with the rate limiter's backoff, so a lost or failed Delete is
  // retried (components/ws-manager-mk2/controllers/workspace_controller.go actOnStatus, read at
  // 9b31e797816c; the port follows 4f45d02eac95). Until 2026-11-26 the port dropped the
  // error and a CR whose Delete failed twice stayed Stopped for good (corpus
  // stopped-cr-delete-lost-twice, a port bug, not Gitpod's).
  const kube::Status removed = co_await client_.remove(workspace_ref(ws.meta.name));
  world_.sim().record(kActor, "delete-workspace", ws.meta.name,
                      removed.ok() ? "ok" : kube::code_name(removed.code));
  if (!removed.ok() && !removed.is(kube::Code::kNotFound)) co_return ReconcileResult::failed();
  co_return ReconcileResult::done();
}

Task<ReconcileResult> Mk2Manager::delete_pod(const kube::Object& pod,
                                             std::optional<DurationMs> grace_ms) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  if (grace_ms) WSIM_ASSERT_GE(*grace_ms, 0);
  kube::DeleteOptions options;
  options.grace_period_ms = grace_ms;
  const kube::Status s = co_await client_.remove(kube::ObjectRef::of(pod), options);
  world_.sim().record(kActor, "delete-pod", pod.meta.name, s.ok() ? "ok" : kube::code_name(s.code));
  co_return pod_delete_result(s);
}

// §3.5 B9.
Task<ReconcileResult> Mk2Manager::remove_pod_finalizer(const kube::Object& pod) {
  WSIM_ASSERT_EQ(pod.kind, std::string("Pod"));
  if (!kube::has_finalizer(pod, kFinalizer)) co_return ReconcileResult::done();
  kube::Object copy = pod;
  copy.meta.finalizers = kube::without_finalizer(copy.meta.finalizers, kFinalizer);
  WSIM_ASSERT(!kube::has_finalizer(copy, kFinalizer));
  kube::Result<kube::Object> updated = co_await client_.update(copy);
  world_.sim().record(kActor, "remove-pod-finalizer", pod.meta.name,
                      updated.ok() ? "ok" : kube::code_name(updated.status.code));
  if (updated.status.is(kube::Code::kConflict))
    co_return ReconcileResult::after(kConflictRequeueMs);
  if (!updated.ok() && !updated.status.is(kube::Code::kNotFound))
    co_return ReconcileResult::failed();
  co_return ReconcileResult::after(10 * kSecondMs);
}

}  // namespace wsim::gitpod::mk2
