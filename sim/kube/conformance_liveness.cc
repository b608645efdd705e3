// See conformance.h. The liveness side, judged once after heal + settle from the store, the
// informers' caches and the monitor's write times. Rules cite Kubernetes at tag v1.32.0;
// docs/world-invariants.md explains them.
#include <algorithm>
#include <map>
#include <tuple>

#include "sim/core/assert.h"
#include "sim/kube/conformance.h"

namespace wsim::kube {

std::vector<ConformanceViolation> ConformanceMonitor::check_liveness() const {
  std::vector<ConformanceViolation> out;
  check_informers(out);
  check_collection(out);
  check_deletions(out);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.invariant_id, a.object) < std::tie(b.invariant_id, b.object);
  });
  // Only the liveness side's ids (kube.L*): the safety ones come from observe().
  for (const ConformanceViolation& v : out) WSIM_ASSERT_EQ(v.invariant_id.rfind("kube.L", 0), 0u);
  return out;
}

bool ConformanceMonitor::recently_changed(const ObjectRef& ref) const {
  const TimeMs now = sim_.now_ms();
  auto written = last_write_ms_.find(ref);
  if (written != last_write_ms_.end()) WSIM_ASSERT_LE(written->second, now);  // Time only grows.
  if (written != last_write_ms_.end() && now - written->second < options_.quiet_ms) return true;
  auto removed = removed_ms_.find(ref);
  if (removed != removed_ms_.end()) WSIM_ASSERT_LE(removed->second, now);
  return removed != removed_ms_.end() && now - removed->second < options_.quiet_ms;
}

std::vector<std::string> cache_differences(
    const std::vector<std::pair<ObjectRef, std::uint64_t>>& cache,
    const std::map<ObjectRef, std::uint64_t>& stored,
    const std::function<bool(const ObjectRef&)>& skip) {
  WSIM_ASSERT(skip != nullptr);
  const std::map<ObjectRef, std::uint64_t> cached(cache.begin(), cache.end());
  std::vector<std::string> out;
  for (const auto& [ref, rv] : stored) {
    auto it = cached.find(ref);
    if ((it != cached.end() && it->second == rv) || skip(ref)) continue;
    out.push_back(
        ref.to_string() + " stored at rv " + std::to_string(rv) +
        (it == cached.end() ? ", not cached" : ", cached at rv " + std::to_string(it->second)));
  }
  for (const auto& [ref, rv] : cached) {
    if (stored.count(ref) != 0 || skip(ref)) continue;
    out.push_back(ref.to_string() + " cached at rv " + std::to_string(rv) + ", not in the store");
  }
  return out;
}

// kube.L1 [reconstructed] from client-go tools/cache/reflector.go ListAndWatch and
// shared_informer.go: a watch delivers every change in order and a 410 Gone makes the reflector
// relist, so once writes stop, a watching informer's store equals the server's objects in its
// scope.
void ConformanceMonitor::check_informers(std::vector<ConformanceViolation>& out) const {
  const auto skip = [this](const ObjectRef& ref) { return recently_changed(ref); };
  for (const ApiServer::InformerCacheView& view : api_.informer_caches()) {
    std::map<ObjectRef, std::uint64_t> stored;
    for (const Object* object : api_.peek_list(view.kind, view.namespace_, view.selector)) {
      stored.emplace(ObjectRef::of(*object), object->meta.resource_version);
    }
    const std::vector<std::string> differences = cache_differences(view.cache, stored, skip);
    if (differences.empty()) continue;
    const std::string& first = differences.front();
    WSIM_ASSERT_NE(first.find(' '), std::string::npos);  // "<ref> ...": the ref is cut off.
    const std::string scope = view.kind + (view.namespace_.empty() ? "" : " in " + view.namespace_);
    out.push_back({"kube.L1", first.substr(0, first.find(' ')),
                   "informer " + view.identity + " (" + scope + ") still differs from the store " +
                       "after settle in " + std::to_string(differences.size()) +
                       " object(s): " + first});
  }
}

namespace {

// Where `owner` of `dependent` lives: the dependent's namespace unless the owner kind is
// cluster-scoped (restated, not controller_util.h owner_target: see conformance.h).
ObjectRef owner_ref(const Object& dependent, const OwnerReference& owner) {
  WSIM_ASSERT(!dependent.kind.empty());
  return ObjectRef(owner.kind, is_cluster_scoped(owner.kind) ? "" : dependent.meta.namespace_,
                   owner.name);
}

}  // namespace

bool ConformanceMonitor::owner_alive(const ObjectRef& target, const OwnerReference& owner) const {
  const Object* live = api_.peek(target);
  if (live != nullptr) WSIM_ASSERT_EQ(live->meta.name, target.name);
  return live != nullptr && live->meta.uid == owner.uid;
}

// kube.L2: pkg/controller/garbagecollector/garbagecollector.go attemptToDeleteItem (a dependent
// none of whose owners exists with the referenced uid is deleted; "dangling" references to
// absent owners count as absent).
void ConformanceMonitor::check_collection(std::vector<ConformanceViolation>& out) const {
  for (const Object* object : api_.peek_list("", "")) {
    WSIM_ASSERT(object != nullptr);
    const ObjectMeta& meta = object->meta;
    if (meta.owner_references.empty() || meta.deletion_ms) continue;
    const ObjectRef ref = ObjectRef::of(*object);
    if (recently_changed(ref)) continue;
    bool pending = false;
    for (const OwnerReference& owner : meta.owner_references) {
      const ObjectRef target = owner_ref(*object, owner);
      pending = pending || owner_alive(target, owner) || recently_changed(target);
    }
    if (pending) continue;
    const OwnerReference& first = meta.owner_references.front();
    out.push_back({"kube.L2", ref.to_string(),
                   "every owner is gone after settle (e.g. " + first.kind + " " + first.name +
                       " uid " + first.uid + "), but the dependent was not collected"});
  }
}

// kube.L3: the namespace controller (pkg/controller/namespace/deletion/
// namespaced_resources_deleter.go Delete: delete all content, then remove the "kubernetes"
// finalizer) and the kubelet (pkg/kubelet/pod_workers.go, status_manager.go: a pod is removed
// once its containers stopped, at the latest after its grace period) finish every deletion that
// nothing holds; an object deleting with no finalizer is removed at once (store.go).
void ConformanceMonitor::check_deletions(std::vector<ConformanceViolation>& out) const {
  const TimeMs now = sim_.now_ms();
  for (const Object* object : api_.peek_list("", "")) {
    WSIM_ASSERT(object != nullptr);
    const ObjectMeta& meta = object->meta;
    if (!meta.deletion_ms || now - *meta.deletion_ms < options_.quiet_ms) continue;
    // Deleting for at least quiet_ms: its deletionTimestamp (a pod's deadline) is in the past.
    WSIM_ASSERT_LE(*meta.deletion_ms, now);
    const ObjectRef ref = ObjectRef::of(*object);
    if (recently_changed(ref)) continue;
    std::string stuck;
    if (object->kind == "Namespace") {
      const std::vector<const Object*> content = api_.peek_list("", meta.name);
      const auto idle = std::find_if(content.begin(), content.end(), [&](const Object* item) {
        return !item->meta.deletion_ms && !recently_changed(ObjectRef::of(*item));
      });
      if (content.empty()) stuck = "still Terminating with no content left";
      if (idle != content.end())
        stuck = "content " + ObjectRef::of(**idle).to_string() + " was never deleted";
    } else if (object->kind == "Pod" && meta.deletion_grace_period_ms.value_or(0) > 0) {
      const Object* node = api_.peek(ObjectRef("Node", "", object->spec_or("nodeName", "")));
      if (node != nullptr && node->status_or("ready", "false") == "true") {
        stuck = "still there " + std::to_string(now - *meta.deletion_ms) +
                " ms after its grace period, on Ready node " + node->meta.name;
      }
    } else if (meta.finalizers.empty()) {
      stuck = "deleting with no finalizer left, but still stored";
    }
    if (!stuck.empty()) out.push_back({"kube.L3", ref.to_string(), stuck});
  }
}

}  // namespace wsim::kube
