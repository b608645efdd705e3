// mk1 state writers, ported from seed 004 (annotations.go at 724ed7a92a^): markWorkspace and
// patchPodLifecycleIndependentState, both retry.RetryOnConflict(DefaultBackoff, get → modify →
// Update). The comment of the original holds here too: "neither atomic, nor synchronized" —
// every Get and Update is an interleaving point; safety rests on resourceVersion.
#include "model/gitpod/mk1/manager.h"
#include "model/gitpod/names.h"
#include "model/gitpod/world/world.h"
#include "sim/core/assert.h"

namespace wsim::gitpod::mk1 {
namespace {

struct Backoff {
  int steps;
  DurationMs first_ms;
  int factor;
};

// client-go retry.DefaultBackoff (PLIS era) and the finalizer era's own (§7.2).
Backoff backoff_for(bool plis_era) { return plis_era ? Backoff{4, 10, 5} : Backoff{7, 100, 2}; }

}  // namespace

Task<bool> Mk1Manager::mark_pod(std::string instance, std::function<bool(kube::Object&)> edit) {
  const Backoff backoff = backoff_for(plis_era());
  DurationMs delay_ms = backoff.first_ms;
  for (int step = 0; step < backoff.steps; ++step) {
    kube::Result<kube::Object> pod =
        co_await client_.get(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)});
    if (pod.status.is(kube::Code::kNotFound)) co_return !plis_era();  // §7.2.
    if (!pod.ok()) co_return false;
    if (!edit(pod.value)) co_return true;
    kube::Result<kube::Object> updated = co_await client_.update(pod.value);
    if (updated.ok()) co_return true;
    if (!updated.status.is(kube::Code::kConflict)) co_return false;
    world_.sim().record(kActor, "mark-workspace", instance, "Conflict", "retrying");
    co_await world_.sim().loop().sleep(delay_ms);
    delay_ms *= backoff.factor;
  }
  co_return false;
}

Task<bool> Mk1Manager::patch_plis(std::string instance, std::function<bool(Plis&)> edit,
                                  std::map<std::string, std::optional<std::string>> marks) {
  const Backoff backoff = backoff_for(true);
  DurationMs delay_ms = backoff.first_ms;
  for (int step = 0; step < backoff.steps; ++step) {
    kube::Result<kube::Object> cm =
        co_await client_.get(kube::ObjectRef{"ConfigMap", kNamespace, plis_name(instance)});
    if (!cm.ok()) co_return false;  // A missing CM is an error (§7.3).
    Plis plis = read_plis(cm.value).value_or(Plis{});
    bool needs_update = edit(plis);
    cm.value.meta.annotations[kAnnPlis] = encode_plis(plis);
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
    if (!needs_update) co_return true;
    kube::Result<kube::Object> updated = co_await client_.update(cm.value);
    if (updated.ok()) co_return true;
    if (!updated.status.is(kube::Code::kConflict)) co_return false;
    world_.sim().record(kActor, "patch-plis", instance, "Conflict", "retrying");
    co_await world_.sim().loop().sleep(delay_ms);
    delay_ms *= backoff.factor;
  }
  world_.sim().record(kActor, "patch-plis", instance, "gave up", "conflicts exhausted the backoff");
  co_return false;
}

Task<void> Mk1Manager::delete_pod(const std::string& instance, std::optional<DurationMs> grace_ms) {
  kube::DeleteOptions options;
  options.grace_period_ms = grace_ms;
  options.propagation = kube::Propagation::kForeground;
  const kube::Status s =
      co_await client_.remove(kube::ObjectRef{"Pod", kNamespace, pod_name(instance)}, options);
  world_.sim().record(kActor, "delete-pod", instance, s.ok() ? "ok" : kube::code_name(s.code));
}

Task<bool> Mk1Manager::delete_plis(const std::string& instance) {
  const kube::Status s =
      co_await client_.remove(kube::ObjectRef{"ConfigMap", kNamespace, plis_name(instance)});
  world_.sim().record(kActor, "delete-plis", instance, s.ok() ? "ok" : kube::code_name(s.code));
  co_return s.ok() || s.is(kube::Code::kNotFound);
}

}  // namespace wsim::gitpod::mk1
