// mk1 state writers (components/ws-manager/pkg/manager/annotations.go at 724ed7a92a^ and
// c8c4c3bda92c): markWorkspace and patchPodLifecycleIndependentState, both
// retry.RetryOnConflict of Get → modify → Update. m.Clientset is mgr.GetClient() (cmd/run.go), so
// every Get — findWorkspacePod's List included — reads the informer cache: while the cache lags
// a write, each retry sends the same stale resourceVersion and conflicts again, and the backoff
// (PLIS era: retry.DefaultBackoff, 4 steps from 10 ms, factor 5, jitter 0.1, about 0.3 s;
// finalizer era markWorkspace: 7 steps from 100 ms, factor 2, jitter 0.1) can run out. The
// comment of the original holds here too: "neither atomic, nor synchronized".
// mk1-plis-direct (annotations.go @ 08774bd177^, the form seed 004 shows): m.Clientset is a
// kubernetes.Interface, so both Gets go to the API server and a Conflict needs a concurrent write
// (or an injected one); there is no informer lag to conflict with. markWorkspace sends its Update
// whatever the annotations did (annotation.Apply's result is ignored) in every era: an edit
// returning true below is such an unconditional Update.
// Simplified: findWorkspacePod is a List by the workspaceID label; here a Get of the pod by name.
// Simplified: the finalizer era's modifyFinalizer (retry.DefaultBackoff) uses markWorkspace's
// backoff here.
#include "model/gitpod/mk1/manager.h"
#include "model/gitpod/names.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"
#include "sim/kube/retry.h"

namespace wsim::gitpod::mk1 {
namespace {

kube::Backoff backoff_for(bool plis_era) {
  const kube::Backoff backoff =
      plis_era ? kube::default_backoff() : kube::Backoff(7, 100, 2.0, 0.1);
  WSIM_ASSERT_GT(backoff.steps, 0);  // At least the first attempt.
  return backoff;
}

// markWorkspace's backoff: the era's, or the counterfactual budget of
// GitpodConfig.mk1_mark_retry_steps ([invented], docs/fidelity.md M6).
kube::Backoff mark_backoff(bool plis_era, int retry_steps) {
  WSIM_ASSERT_GE(retry_steps, 0);
  if (retry_steps == 0) return backoff_for(plis_era);
  WSIM_ASSERT_LE(retry_steps, 1000);  // normalize's cap on mk1_mark_retry_steps.
  return kube::Backoff(retry_steps, 100, 1.0, 0.1);
}

// RetryOnConflict's retry rule.
bool is_conflict(const kube::Status& s) { return s.is(kube::Code::kConflict); }

// The counterfactual mark budget's retry rule: every failure but NotFound.
bool retriable_unless_gone(const kube::Status& s) {
  return !s.ok() && !s.is(kube::Code::kNotFound);
}

// A Status for "the edit needs no write" (RetryOnConflict's fn returning nil without Update).
kube::Status unchanged() { return kube::Status::Ok(); }

}  // namespace

Task<kube::Status> Mk1Manager::mark_pod_once(std::string instance,
                                             std::function<bool(kube::Object&)> edit) {
  WSIM_ASSERT(edit != nullptr);
  kube::Result<kube::Object> pod =
      co_await read(kube::ObjectRef("Pod", kNamespace, pod_name(instance)));
  if (!pod.ok()) co_return pod.status;
  WSIM_ASSERT_EQ(pod.value.meta.name, pod_name(instance));
  if (!edit(pod.value)) co_return unchanged();
  kube::Result<kube::Object> updated = co_await client_.update(std::move(pod.value));
  if (updated.status.is(kube::Code::kConflict)) {
    world_.sim().record(kActor, "mark-workspace", instance, "Conflict", "retrying");
  }
  co_return updated.status;
}

Task<bool> Mk1Manager::mark_pod(std::string instance, std::function<bool(kube::Object&)> edit) {
  WSIM_ASSERT(!instance.empty());
  // Named, not temporaries inside the co_await expression (g++ 12, sim/kube/README.md).
  const kube::Backoff backoff = mark_backoff(plis_era(), world_.settings().mk1_mark_retry_steps);
  std::function<Task<kube::Status>()> attempt = [this, instance, edit] {
    return mark_pod_once(instance, edit);
  };
  // The counterfactual budget also retries what RetryOnConflict gives up on at once (429, 5xx,
  // timeouts): with it the mark lands unless the pod is gone ([invented], docs/fidelity.md M6).
  const std::function<bool(const kube::Status&)> retriable =
      world_.settings().mk1_mark_retry_steps != 0 ? retriable_unless_gone : is_conflict;
  const kube::Status s =
      co_await kube::retry_on_error(world_.sim(), retry_stream_, backoff, retriable, attempt);
  if (s.is(kube::Code::kNotFound)) co_return !plis_era();  // Finalizer era: not found = success.
  if (!s.ok()) {
    world_.sim().record(kActor, "mark-workspace", instance, "gave up", kube::code_name(s.code));
  }
  co_return s.ok();
}

Task<kube::Status> Mk1Manager::patch_plis_once(
    std::string instance, std::function<bool(Plis&)> edit,
    std::map<std::string, std::optional<std::string>> marks) {
  WSIM_ASSERT(plis_era());  // PLIS ConfigMaps exist in the PLIS era only.
  kube::Result<kube::Object> cm =
      co_await read(kube::ObjectRef("ConfigMap", kNamespace, plis_name(instance)));
  if (!cm.ok()) co_return cm.status;  // A missing CM is an error.
  WSIM_ASSERT_EQ(cm.value.meta.name, plis_name(instance));
  Plis plis = read_plis(cm.value).value_or(Plis{});
  bool needs_update = edit(plis);
  cm.value.meta.annotations[kAnnPlis] = encode_plis(plis);
  WSIM_ASSERT(read_plis(cm.value) == plis);  // Paired: the PLIS written reads back the same.
  for (const auto& [key, value] : marks) {
    auto it = cm.value.meta.annotations.find(key);
    if (value.has_value()) {
      needs_update = needs_update || it == cm.value.meta.annotations.end();
      cm.value.meta.annotations[key] = *value;
    } else if (it != cm.value.meta.annotations.end()) {
      needs_update = true;
      cm.value.meta.annotations.erase(it);
    }
  }
  if (!needs_update) co_return unchanged();
  kube::Result<kube::Object> updated = co_await client_.update(std::move(cm.value));
  if (updated.status.is(kube::Code::kConflict)) {
    world_.sim().record(kActor, "patch-plis", instance, "Conflict", "retrying");
  }
  co_return updated.status;
}

Task<bool> Mk1Manager::patch_plis(std::string instance, std::function<bool(Plis&)> edit,
                                  std::map<std::string, std::optional<std::string>> marks) {
  WSIM_ASSERT(!instance.empty());
  const kube::Backoff backoff = backoff_for(true);
  std::function<Task<kube::Status>()> attempt = [this, instance, edit, marks] {
    return patch_plis_once(instance, edit, marks);
  };
  const kube::Status s =
      co_await kube::retry_on_conflict(world_.sim(), retry_stream_, backoff, attempt);
  if (s.is(kube::Code::kConflict)) {
    world_.sim().record(kActor, "patch-plis", instance, "gave up",
                        "conflicts exhausted the backoff");
  }
  co_return s.ok();
}

Task<void> Mk1Manager::delete_pod(const std::string& instance, std::optional<DurationMs> grace_ms) {
  WSIM_ASSERT(!instance.empty());
  if (grace_ms) WSIM_ASSERT_GE(*grace_ms, 0);
  kube::DeleteOptions options;
  options.grace_period_ms = grace_ms;
  options.propagation = kube::Propagation::kForeground;
  const kube::Status s =
      co_await client_.remove(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)}, options);
  world_.sim().record(kActor, "delete-pod", instance, s.ok() ? "ok" : kube::code_name(s.code));
}

Task<bool> Mk1Manager::delete_plis(const std::string& instance) {
  WSIM_ASSERT(plis_era());
  WSIM_ASSERT(!instance.empty());
  const kube::Status s =
      co_await client_.remove(kube::ObjectRef{"ConfigMap", kNamespace, plis_name(instance)});
  world_.sim().record(kActor, "delete-plis", instance, s.ok() ? "ok" : kube::code_name(s.code));
  co_return s.ok() || s.is(kube::Code::kNotFound);
}

}  // namespace wsim::gitpod::mk1
