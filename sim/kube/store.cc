// The object store of the fake API server: validation, admission and the write rules of
// sim/kube/README.md (uid, resourceVersion, generation, finalizers, deletionTimestamp, grace
// periods, namespace lifecycle). Every write goes through commit()/erase(), which emit exactly
// one change per resourceVersion.
#include <algorithm>
#include <string>

#include "sim/kube/object_store.h"

#include "sim/kube/kinds.h"
#include "sim/kube/watch_hub.h"

namespace wsim::kube {

namespace {

constexpr DurationMs kDefaultPodGraceMs = 30 * kSecondMs;
constexpr const char* kForegroundFinalizer = "foregroundDeletion";
constexpr const char* kOrphanFinalizer = "orphan";

std::string quoted(const std::string& kind, const std::string& name) {
  return kind + " \"" + name + "\"";
}

Status not_found(const ObjectRef& ref) {
  return Status::Error(Code::kNotFound, quoted(ref.kind, ref.name) + " not found");
}

Status stale(const ObjectRef& ref) {
  WSIM_ASSERT(!ref.name.empty());  // Only a stored object is stale.
  return Status::Error(Code::kConflict,
                       "Operation cannot be fulfilled on " + quoted(ref.kind, ref.name) +
                           ": the object has been modified; please apply your changes to the "
                           "latest version and try again");
}

bool has(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Finalizers in `wanted` that `current` does not have.
bool adds_finalizer(const std::vector<std::string>& current,
                    const std::vector<std::string>& wanted) {
  for (const std::string& f : wanted) {
    if (!has(current, f)) return true;
  }
  // Nothing new: `wanted` fits in `current` (duplicates aside).
  WSIM_ASSERT(wanted.empty() || !current.empty());
  return false;
}

Status no_new_finalizers(const ObjectRef& ref) {
  WSIM_ASSERT(!ref.name.empty());
  return Status::Error(Code::kInvalid,
                       quoted(ref.kind, ref.name) +
                           " is invalid: metadata.finalizers: Forbidden: no new finalizers can "
                           "be added if the object is being deleted");
}

void merge_map(Fields& target, const std::map<std::string, std::optional<std::string>>& patch) {
  for (const auto& [key, value] : patch) {
    if (value) {
      target[key] = *value;
    } else {
      target.erase(key);
    }
  }
}

// Sets every entry of `from` in `into` (apply's merge). An entry `into` already holds with the
// same value writes nothing: a re-apply of what is stored leaves the map shared with the stored
// object (no copy of it; same_content then compares one pointer) [invented: speed only].
void merge_values(Fields& into, const Fields& from) {
  for (const auto& [key, value] : from) {
    auto it = into.find(key);
    if (it != into.end() && it->second == value) continue;
    into.insert_or_assign(key, value);
  }
  WSIM_ASSERT_GE(into.size(), from.size());  // Apply only adds or overwrites.
}

// A non-negative decimal number of milliseconds, or `fallback`.
DurationMs parse_ms(const std::string& text, DurationMs fallback) {
  WSIM_ASSERT_GE(fallback, 0);
  if (text.empty() || text.size() > 15) return fallback;
  DurationMs value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return fallback;
    value = value * 10 + (c - '0');
  }
  return value;
}

// A deleting object of a kind with graceful deletion (a pod) whose grace period still runs.
bool in_grace(const Object& object, const KindInfo& info) {
  WSIM_ASSERT(info.kind.empty() || info.kind == object.kind);  // Empty: an unregistered kind.
  return info.graceful_deletion && object.meta.deletion_ms &&
         object.meta.deletion_grace_period_ms.value_or(0) > 0;
}

bool in_grace(const Object& object) {
  // Most objects are not deleting: no registry lookup for them.
  if (!object.meta.deletion_ms) return false;
  return in_grace(object, kind_info(object.kind));
}

// Equal up to resourceVersion: a write that would change nothing is not a write.
bool same_content(const Object& a, const Object& b) {
  WSIM_ASSERT_EQ(a.kind, b.kind);
  if (a.kind != b.kind || a.spec != b.spec || a.status != b.status ||
      a.conditions != b.conditions || a.data != b.data) {
    return false;
  }
  // Field by field, so that no ObjectMeta is copied to compare it.
  const ObjectMeta& ma = a.meta;
  const ObjectMeta& mb = b.meta;
  return ma.name == mb.name && ma.namespace_ == mb.namespace_ && ma.uid == mb.uid &&
         ma.generation == mb.generation && ma.labels == mb.labels &&
         ma.annotations == mb.annotations && ma.owner_references == mb.owner_references &&
         ma.finalizers == mb.finalizers && ma.creation_ms == mb.creation_ms &&
         ma.deletion_ms == mb.deletion_ms &&
         ma.deletion_grace_period_ms == mb.deletion_grace_period_ms;
}

// The Conflict a delete's uid / resourceVersion precondition gives on `existing`, else Ok.
Status failed_delete_precondition(const Object& existing, const DeleteOptions& options) {
  WSIM_ASSERT(!existing.meta.uid.empty());  // A stored object.
  if (options.precondition_uid && *options.precondition_uid != existing.meta.uid) {
    return Status::Error(Code::kConflict,
                         "Precondition failed: UID in precondition: " + *options.precondition_uid +
                             ", UID in object meta: " + existing.meta.uid);
  }
  if (options.precondition_resource_version &&
      *options.precondition_resource_version != existing.meta.resource_version) {
    return Status::Error(
        Code::kConflict,
        "Precondition failed: ResourceVersion in precondition: " +
            std::to_string(*options.precondition_resource_version) +
            ", ResourceVersion in object meta: " + std::to_string(existing.meta.resource_version));
  }
  return Status::Ok();
}

// The grace period a pod's deletion gets: the request's, else the pod's own, else the default;
// none for a pod that is unscheduled or finished (nothing to stop).
DurationMs pod_grace_ms(const Object& pod, const DeleteOptions& options) {
  WSIM_ASSERT(kind_info(pod.kind).graceful_deletion);
  DurationMs grace_ms = parse_ms(pod.spec_or("terminationGracePeriodMs", ""), kDefaultPodGraceMs);
  if (options.grace_period_ms) grace_ms = *options.grace_period_ms;
  const std::string phase = pod.status_or("phase", "");
  if (pod.spec_or("nodeName", "").empty() || phase == "Succeeded" || phase == "Failed") {
    grace_ms = 0;
  }
  return std::max<DurationMs>(grace_ms, 0);
}

}  // namespace

ObjectRef ObjectStore::normalize(ObjectRef ref) {
  if (is_cluster_scoped(ref.kind)) ref.namespace_.clear();
  WSIM_ASSERT(ref.namespace_.empty() || !is_cluster_scoped(ref.kind));
  return ref;
}

ObjectStore::KindStore& ObjectStore::store_for(const std::string& kind) {
  if (KindStore* store = find_store(kind)) return *store;
  auto [it, inserted] = kinds_.try_emplace(kind);
  WSIM_ASSERT(inserted);
  kind_index_.emplace_back(it->first, &it->second);
  WSIM_ASSERT_EQ(kind_index_.size(), kinds_.size());
  return it->second;
}

ObjectStore::KindStore* ObjectStore::find_store(std::string_view kind) const {
  WSIM_ASSERT_EQ(kind_index_.size(), kinds_.size());  // Paired with store_for().
  for (const auto& [name, store] : kind_index_) {
    if (name == kind) return store;
  }
  return nullptr;
}

std::vector<std::shared_ptr<const Object>> ObjectStore::list(const std::string& kind,
                                                             const std::string& namespace_,
                                                             const LabelSelector& selector) const {
  std::vector<std::shared_ptr<const Object>> items;
  const KindStore* found = store_of(kind);
  if (found == nullptr) return items;
  const KindStore& store = *found;
  auto it =
      namespace_.empty() ? store.begin() : store.lower_bound(ObjectRefView{"", namespace_, ""});
  for (; it != store.end(); ++it) {
    if (!namespace_.empty() && it->first.namespace_ != namespace_) break;
    if (selector.matches(it->second->meta.labels)) items.push_back(it->second);
  }
  WSIM_ASSERT_LE(items.size(), store.size());
  WSIM_ASSERT(std::is_sorted(
      items.begin(), items.end(),
      [](const std::shared_ptr<const Object>& a, const std::shared_ptr<const Object>& b) {
        return ref_order_less(a.get(), b.get());
      }));
  return items;
}

std::vector<const Object*> ObjectStore::peek_list(const std::string& kind,
                                                  const std::string& namespace_,
                                                  const LabelSelector& selector) const {
  std::vector<const Object*> out;
  auto collect = [&](const KindStore& store) {
    auto it =
        namespace_.empty() ? store.begin() : store.lower_bound(ObjectRefView{"", namespace_, ""});
    for (; it != store.end(); ++it) {
      if (!namespace_.empty() && it->first.namespace_ != namespace_) break;
      if (selector.matches(it->second->meta.labels)) out.push_back(it->second.get());
    }
  };
  if (!kind.empty()) {
    if (const KindStore* store = store_of(kind)) collect(*store);
    return out;
  }
  for (const auto& [k, store] : kinds_) collect(store);
  std::sort(out.begin(), out.end(), ref_order_less);
  WSIM_ASSERT_LE(out.size(), object_count_);
  return out;
}

const std::shared_ptr<const Object>* ObjectStore::find(const ObjectRefView& ref) const {
  // normalize(ref) without copying it.
  const std::string_view ns = is_cluster_scoped(ref.kind) ? std::string_view() : ref.namespace_;
  auto it = by_ref_.find(ObjectRefView{ref.kind, ns, ref.name});
  if (it == by_ref_.end()) return nullptr;
  const std::shared_ptr<const Object>& slot = it->second->second;
  WSIM_ASSERT(slot != nullptr);
  // The index entry names the object it holds (store index consistency).
  WSIM_ASSERT(slot->meta.name == ref.name);
  WSIM_ASSERT(slot->meta.namespace_ == ns);
  WSIM_ASSERT(slot->kind == ref.kind);
  WSIM_ASSERT_LE(slot->meta.resource_version, resource_version_);
  return &slot;
}

bool ObjectStore::removable(const Object& object) {
  WSIM_ASSERT(!object.kind.empty());
  if (!object.meta.deletion_ms || !object.meta.finalizers.empty()) return false;
  const KindInfo& info = kind_info(object.kind);
  // The namespace lifecycle: removed only once its spec finalizers are gone too.
  if (!info.spec_finalizer.empty() && !object.spec_or("finalizers", "").empty()) return false;
  if (in_grace(object, info)) return false;
  return true;
}

std::shared_ptr<const Object>& ObjectStore::slot_for(const ObjectRef& ref) {
  if (auto indexed = by_ref_.find(ObjectRefView{ref.kind, ref.namespace_, ref.name});
      indexed != by_ref_.end()) {
    return indexed->second->second;
  }
  auto [it, inserted] = store_for(ref.kind).try_emplace(ref);
  WSIM_ASSERT(inserted);
  by_ref_.emplace(ObjectRefView{it->first.kind, it->first.namespace_, it->first.name}, it);
  // Indexed: every stored object, and the one being created (create() counted it already).
  WSIM_ASSERT_EQ(by_ref_.size(), object_count_);
  return it->second;
}

std::shared_ptr<const Object> ObjectStore::commit(const ObjectRef& ref, Object updated) {
  if (removable(updated)) return erase(ref, std::move(updated));
  const std::uint64_t previous_rv = resource_version_;
  updated.meta.resource_version = ++resource_version_;
  // resourceVersion strictly increases on every write (paired: watch.cc WatchHub::emit() and
  // offer()).
  WSIM_ASSERT_GT(updated.meta.resource_version, previous_rv);
  auto& slot = slot_for(ref);
  std::shared_ptr<const Object> old = std::move(slot);
  if (old) WSIM_ASSERT_LT(old->meta.resource_version, updated.meta.resource_version);
  if (old) WSIM_ASSERT_EQ(old->meta.uid, updated.meta.uid);
  slot = std::make_shared<const Object>(std::move(updated));
  std::shared_ptr<const Object> now = slot;
  const WatchEventType type = old ? WatchEventType::kModified : WatchEventType::kAdded;
  // The hub has every earlier write and not this one yet (invariant 1, paired with emit()).
  WSIM_ASSERT_EQ(hub_.resource_version() + 1, resource_version_);
  hub_.emit(type, now, std::move(old));
  return now;
}

std::shared_ptr<const Object> ObjectStore::erase(const ObjectRef& ref, Object last) {
  KindStore* found = find_store(ref.kind);  // Erasing never creates a kind's store.
  WSIM_ASSERT(found != nullptr);
  KindStore& store = *found;
  auto indexed = by_ref_.find(ObjectRefView{ref.kind, ref.namespace_, ref.name});
  WSIM_ASSERT(indexed != by_ref_.end());
  const KindStore::iterator it = indexed->second;
  WSIM_ASSERT(it->first == ref);
  std::shared_ptr<const Object> old = std::move(it->second);
  WSIM_ASSERT(old != nullptr);
  by_ref_.erase(indexed);  // Before the node its key views.
  store.erase(it);
  WSIM_ASSERT_GT(object_count_, 0u);
  --object_count_;
  WSIM_ASSERT_EQ(by_ref_.size(), object_count_);
  last.meta.resource_version = ++resource_version_;
  WSIM_ASSERT_LT(old->meta.resource_version, last.meta.resource_version);
  auto gone = std::make_shared<const Object>(std::move(last));
  WSIM_ASSERT_EQ(hub_.resource_version() + 1, resource_version_);
  hub_.emit(WatchEventType::kDeleted, gone, std::move(old));
  return gone;
}

Status ObjectStore::check_create(const ObjectRef& ref) const {
  if (ref.kind.empty()) return Status::Error(Code::kInvalid, "object kind is required");
  if (ref.name.empty()) {
    return Status::Error(Code::kInvalid, ref.kind + " is invalid: metadata.name: Required value");
  }
  if (!is_cluster_scoped(ref.kind)) {
    if (ref.namespace_.empty()) {
      return Status::Error(Code::kInvalid, quoted(ref.kind, ref.name) +
                                               " is invalid: metadata.namespace: Required value");
    }
    const auto* ns = find(ObjectRefView{"Namespace", "", ref.namespace_});
    if (!ns) {
      return Status::Error(Code::kNotFound, "namespaces \"" + ref.namespace_ + "\" not found");
    }
    if ((*ns)->meta.deletion_ms) {
      return Status::Error(Code::kForbidden,
                           quoted(ref.kind, ref.name) +
                               " is forbidden: unable to create new content in namespace " +
                               ref.namespace_ + " because it is being terminated");
    }
  }
  if (find(ref)) {
    return Status::Error(Code::kAlreadyExists, quoted(ref.kind, ref.name) + " already exists");
  }
  // May be created: named, and in a live namespace unless cluster-scoped.
  WSIM_ASSERT(!ref.name.empty());
  WSIM_ASSERT(is_cluster_scoped(ref.kind) || !ref.namespace_.empty());
  return Status::Ok();
}

Result<Object> ObjectStore::create(Object object) {
  const ObjectRef ref = normalize(ObjectRef::of(object));
  object.meta.namespace_ = ref.namespace_;
  if (Status refused = check_create(ref); !refused.ok()) return {std::move(refused), {}};
  const KindInfo& info = kind_info(ref.kind);
  WSIM_ASSERT(!info.cluster_scoped() || ref.namespace_.empty());
  ObjectMeta& meta = object.meta;
  meta.uid = "uid-" + std::to_string(++next_uid_);
  meta.generation = 1;
  meta.creation_ms = sim_.now_ms();
  meta.deletion_ms.reset();
  meta.deletion_grace_period_ms.reset();
  // Status is the cluster's to write: ignored on create (like the status subresource of
  // built-in kinds and CRDs), except for kinds that register with their status (Node).
  if (!info.create_keeps_status) {
    object.status.clear();
    object.conditions.clear();
  }
  if (!info.initial_phase.empty()) object.status["phase"] = info.initial_phase;
  if (!info.spec_finalizer.empty() && object.spec_or("finalizers", "").empty()) {
    object.spec["finalizers"] = info.spec_finalizer;
  }
  ++object_count_;
  const std::uint64_t rv_before = resource_version_;
  auto committed = commit(ref, std::move(object));
  // Stored as written, with the next resourceVersion (a listener may have written more since,
  // even deleted it: the listeners run inside commit()).
  WSIM_ASSERT_EQ(committed->meta.resource_version, rv_before + 1);
  WSIM_ASSERT_EQ(committed->meta.generation, 1);
  return {Status::Ok(), *committed};
}

Result<Object> ObjectStore::update(Object object, Subresource subresource) {
  const ObjectRef ref = normalize(ObjectRef::of(object));
  const auto* slot = find(ref);
  if (!slot) return {not_found(ref), {}};
  const Object& existing = **slot;
  if (object.meta.resource_version != 0 &&
      object.meta.resource_version != existing.meta.resource_version) {
    return {stale(ref), {}};
  }
  if (!object.meta.uid.empty() && object.meta.uid != existing.meta.uid) {
    return {Status::Error(Code::kConflict,
                          "Precondition failed: UID in precondition: " + object.meta.uid +
                              ", UID in object meta: " + existing.meta.uid),
            {}};
  }
  Object updated = existing;
  if (subresource == Subresource::kMain) {
    // deletionTimestamp is immutable: setting one is Invalid; an existing one is kept whatever
    // the update says (Kubernetes' rest.BeforeUpdate + ValidateObjectMetaUpdate).
    if (!existing.meta.deletion_ms && object.meta.deletion_ms) {
      return {Status::Error(Code::kInvalid,
                            quoted(ref.kind, ref.name) +
                                " is invalid: metadata.deletionTimestamp: Invalid value: field "
                                "is immutable"),
              {}};
    }
    if (existing.meta.deletion_ms &&
        adds_finalizer(existing.meta.finalizers, object.meta.finalizers)) {
      return {no_new_finalizers(ref), {}};
    }
    updated.meta.labels = std::move(object.meta.labels);
    updated.meta.annotations = std::move(object.meta.annotations);
    updated.meta.owner_references = std::move(object.meta.owner_references);
    updated.meta.finalizers = std::move(object.meta.finalizers);
    updated.spec = std::move(object.spec);
    updated.data = std::move(object.data);
  } else {
    updated.status = std::move(object.status);
    updated.conditions = std::move(object.conditions);
  }
  if (updated.spec != existing.spec) ++updated.meta.generation;
  if (same_content(updated, existing)) return {Status::Ok(), existing};
  // An update never changes identity or creation, and the generation only grows.
  WSIM_ASSERT_EQ(updated.meta.uid, existing.meta.uid);
  WSIM_ASSERT_EQ(updated.meta.creation_ms, existing.meta.creation_ms);
  WSIM_ASSERT_GE(updated.meta.generation, existing.meta.generation);
  auto committed = commit(ref, std::move(updated));
  return {Status::Ok(), *committed};
}

Result<Object> ObjectStore::patch(const ObjectRef& raw_ref, const MergePatch& patch,
                                  Subresource subresource) {
  const ObjectRef ref = normalize(raw_ref);
  const auto* slot = find(ref);
  if (!slot) return {not_found(ref), {}};
  const Object& existing = **slot;
  if (patch.precondition_resource_version &&
      *patch.precondition_resource_version != existing.meta.resource_version) {
    return {stale(ref), {}};
  }
  Object updated = existing;
  if (subresource == Subresource::kMain) {
    if (patch.finalizers) {
      if (existing.meta.deletion_ms &&
          adds_finalizer(existing.meta.finalizers, *patch.finalizers)) {
        return {no_new_finalizers(ref), {}};
      }
      updated.meta.finalizers = *patch.finalizers;
    }
    merge_map(updated.meta.labels, patch.labels);
    merge_map(updated.meta.annotations, patch.annotations);
    merge_map(updated.spec, patch.spec);
    merge_map(updated.data, patch.data);
  } else {
    merge_map(updated.status, patch.status);
    if (patch.conditions) updated.conditions = *patch.conditions;
  }
  if (updated.spec != existing.spec) ++updated.meta.generation;
  if (same_content(updated, existing)) return {Status::Ok(), existing};
  WSIM_ASSERT_EQ(updated.meta.uid, existing.meta.uid);
  WSIM_ASSERT_GE(updated.meta.generation, existing.meta.generation);
  auto committed = commit(ref, std::move(updated));
  return {Status::Ok(), *committed};
}

Status ObjectStore::remove(const ObjectRef& raw_ref, const DeleteOptions& options) {
  const ObjectRef ref = normalize(raw_ref);
  const auto* slot = find(ref);
  if (!slot) return not_found(ref);
  const Object& existing = **slot;
  if (Status failed = failed_delete_precondition(existing, options); !failed.ok()) return failed;
  const TimeMs now = sim_.now_ms();
  const KindInfo& info = kind_info(ref.kind);

  if (existing.meta.deletion_ms) {
    if (!info.spec_finalizer.empty()) {
      return Status::Error(Code::kConflict,
                           "Operation cannot be fulfilled on " + info.plural + " \"" + ref.name +
                               "\": The system is ensuring all content is removed from this "
                               "namespace.  Upon completion, this namespace will automatically "
                               "be purged by the system.");
    }
    // A pod in its grace period: a shorter grace period shortens it (0 ends it).
    if (in_grace(existing, info) && options.grace_period_ms &&
        (*options.grace_period_ms <= 0 ||
         now + *options.grace_period_ms < *existing.meta.deletion_ms)) {
      Object updated = existing;
      const DurationMs grace = std::max<DurationMs>(0, *options.grace_period_ms);
      updated.meta.deletion_ms = std::min(*existing.meta.deletion_ms, now + grace);
      updated.meta.deletion_grace_period_ms = grace;
      commit(ref, std::move(updated));
    }
    return Status::Ok();  // Already being deleted: nothing more to do.
  }

  Object updated = existing;
  if (options.propagation == Propagation::kForeground &&
      !has(updated.meta.finalizers, kForegroundFinalizer)) {
    updated.meta.finalizers.push_back(kForegroundFinalizer);
  } else if (options.propagation == Propagation::kOrphan &&
             !has(updated.meta.finalizers, kOrphanFinalizer)) {
    updated.meta.finalizers.push_back(kOrphanFinalizer);
  }

  const DurationMs grace_ms = info.graceful_deletion ? pod_grace_ms(existing, options) : 0;
  WSIM_ASSERT_GE(grace_ms, 0);
  updated.meta.deletion_ms = now + grace_ms;
  updated.meta.deletion_grace_period_ms = grace_ms;
  // Kubernetes bumps the generation when the deletionTimestamp is first set.
  ++updated.meta.generation;
  if (!info.deleting_phase.empty()) updated.status["phase"] = info.deleting_phase;
  WSIM_ASSERT_GE(*updated.meta.deletion_ms, now);
  commit(ref, std::move(updated));
  return Status::Ok();
}

Result<Object> ObjectStore::apply(Object object) {
  const ObjectRef ref = normalize(ObjectRef::of(object));
  object.meta.namespace_ = ref.namespace_;
  const auto* slot = find(ref);
  if (!slot) {
    if (object.meta.resource_version != 0) return {not_found(ref), {}};
    return create(std::move(object));
  }
  const Object& existing = **slot;
  if (object.meta.resource_version != 0 &&
      object.meta.resource_version != existing.meta.resource_version) {
    return {stale(ref), {}};
  }
  if (existing.meta.deletion_ms &&
      adds_finalizer(existing.meta.finalizers, object.meta.finalizers)) {
    return {no_new_finalizers(ref), {}};
  }
  Object updated = existing;
  merge_values(updated.meta.labels, object.meta.labels);
  merge_values(updated.meta.annotations, object.meta.annotations);
  merge_values(updated.spec, object.spec);
  merge_values(updated.data, object.data);
  if (!object.meta.owner_references.empty()) {
    updated.meta.owner_references = std::move(object.meta.owner_references);
  }
  for (std::string& f : object.meta.finalizers) {
    if (!has(updated.meta.finalizers, f)) updated.meta.finalizers.push_back(std::move(f));
  }
  if (updated.spec != existing.spec) ++updated.meta.generation;
  if (!options_.apply_always_writes && same_content(updated, existing)) {
    return {Status::Ok(), existing};
  }
  WSIM_ASSERT_EQ(updated.meta.uid, existing.meta.uid);
  WSIM_ASSERT_GE(updated.meta.finalizers.size(), existing.meta.finalizers.size());
  auto committed = commit(ref, std::move(updated));
  return {Status::Ok(), *committed};
}

void ObjectStore::finalize(const ObjectRef& raw_ref) {
  const ObjectRef ref = normalize(raw_ref);
  const auto* slot = find(ref);
  if (!slot || !(*slot)->meta.deletion_ms) return;
  const Object& existing = **slot;
  if (in_grace(existing)) {
    // The kubelet's final delete: the grace period is over.
    Object updated = existing;
    updated.meta.deletion_grace_period_ms = 0;
    commit(ref, std::move(updated));
    return;
  }
  if (removable(existing)) {
    const std::size_t count_before = object_count_;
    erase(ref, existing);
    WSIM_ASSERT_EQ(object_count_ + 1, count_before);
  }
}

}  // namespace wsim::kube
