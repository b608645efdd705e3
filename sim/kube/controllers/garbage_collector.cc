// See garbage_collector.h ([reconstructed] GC cascade).
#include "sim/kube/controllers/garbage_collector.h"

#include <algorithm>

namespace wsim::kube {

namespace {
constexpr const char* kForeground = "foregroundDeletion";
constexpr const char* kOrphan = "orphan";
// Whether `uids` are the uids of `owners`, in order (what index() would store).
bool same_uids(const std::vector<std::string>& uids, const SharedVector<OwnerReference>& owners) {
  if (uids.size() != owners.size()) return false;
  std::size_t i = 0;
  for (const OwnerReference& owner : owners) {
    if (uids[i++] != owner.uid) return false;
  }
  WSIM_ASSERT_EQ(i, uids.size());
  return true;
}

}  // namespace

GarbageCollector::GarbageCollector(Sim& sim, ApiServer& api, GarbageCollectorOptions options)
    : sim_(sim), api_(api), options_(options), stream_(sim.stream("kube.controller.gc")) {
  WSIM_ASSERT_LE(options_.step.min_ms, options_.step.max_ms);
}

void GarbageCollector::start() {
  WSIM_ASSERT(owner_uids_.empty());  // Started once, before it indexed anything.
  api_.subscribe("", [this](const WatchEvent& event) { on_event(event); });
}

std::vector<ObjectRef> GarbageCollector::dependents_of(const std::string& owner_uid) const {
  WSIM_ASSERT(!owner_uid.empty());
  auto it = dependents_.find(owner_uid);
  if (it == dependents_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

void GarbageCollector::unindex(const ObjectRef& ref) {
  WSIM_ASSERT(!ref.name.empty());
  auto it = owner_uids_.find(ref);
  if (it == owner_uids_.end()) return;
  for (const std::string& uid : it->second) {
    auto deps = dependents_.find(uid);
    if (deps == dependents_.end()) continue;
    deps->second.erase(ref);
    if (deps->second.empty()) dependents_.erase(deps);
  }
  owner_uids_.erase(it);
}

void GarbageCollector::index(const Object& object) {
  WSIM_ASSERT(!object.meta.uid.empty());
  const ObjectRef ref = ObjectRef::of(object);
  unindex(ref);
  if (object.meta.owner_references.empty()) return;
  std::vector<std::string> uids;
  for (const OwnerReference& owner : object.meta.owner_references) {
    uids.push_back(owner.uid);
    dependents_[owner.uid].insert(ref);
  }
  owner_uids_[ref] = std::move(uids);
}

void GarbageCollector::on_event(const WatchEvent& event) {
  WSIM_ASSERT(!event.object.meta.uid.empty());
  const Object& object = event.object;
  if (event.type == WatchEventType::kDeleted) {
    const ObjectRef ref = ObjectRef::of(object);
    unindex(ref);
    auto self = by_uid_.find(object.meta.uid);
    if (self != by_uid_.end() && self->second == ref) by_uid_.erase(self);
    // Its dependents may now be orphans (background cascade).
    if (auto deps = dependents_.find(object.meta.uid); deps != dependents_.end()) {
      for (const ObjectRef& dependent : deps->second) enqueue_dependent(dependent);
    }
    // A foreground-deleting owner may be waiting for it.
    for (const OwnerReference& owner : object.meta.owner_references) enqueue_owner_uid(owner.uid);
    return;
  }
  on_written(object);
}

void GarbageCollector::on_written(const Object& object) {
  // The object's ref as a view: an ObjectRef is built only where one is stored or queued.
  const ObjectRefView view = ObjectRefView::of(object);
  WSIM_ASSERT(!object.meta.uid.empty());  // Stored objects have a uid (store.cc create()).
  if (auto self = by_uid_.find(object.meta.uid); self == by_uid_.end()) {
    by_uid_.emplace(object.meta.uid, ObjectRef::of(object));
  } else if (!ObjectRefEqual{}(self->second, view)) {
    self->second = ObjectRef::of(object);
  }
  WSIM_ASSERT(ObjectRefEqual{}(by_uid_.at(object.meta.uid), view));  // The uid index is current.
  auto indexed = owner_uids_.find(view);
  // Re-indexed only when the owners changed: the index is a function of the owner uids.
  const bool same_owners = indexed != owner_uids_.end()
                               ? same_uids(indexed->second, object.meta.owner_references)
                               : object.meta.owner_references.empty();
  // The owners before this write: copied only when they differ from the object's own (else
  // they are its owner references' uids, in order).
  std::vector<std::string> previous_owners;
  if (!same_owners) {
    if (indexed != owner_uids_.end()) previous_owners = indexed->second;
    index(object);
  }
  if (is_deleting(object) &&
      (has_finalizer(object, kForeground) || has_finalizer(object, kOrphan))) {
    enqueue_owner(ObjectRef::of(object));
  }
  // Dangling references (owner absent or with another uid) are collected.
  for (const OwnerReference& owner : object.meta.owner_references) {
    const Object* live = api_.peek(owner_target_view(object, owner));
    if (live == nullptr || live->meta.uid != owner.uid ||
        (is_deleting(*live) && has_finalizer(*live, kForeground))) {
      enqueue_dependent(ObjectRef::of(object));
      break;
    }
  }
  // A dependent that changed (deleting, references stripped) may unblock a foreground owner.
  if (same_owners) {
    for (const OwnerReference& owner : object.meta.owner_references) enqueue_owner_uid(owner.uid);
  } else {
    for (const std::string& uid : previous_owners) enqueue_owner_uid(uid);
  }
}

void GarbageCollector::enqueue_owner_uid(const std::string& uid) {
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return;
  WSIM_ASSERT(!it->second.name.empty());  // The index maps a uid to a named object.
  const Object* owner = api_.peek(it->second);
  if (owner == nullptr || owner->meta.uid != uid || !is_deleting(*owner)) return;
  if (has_finalizer(*owner, kForeground) || has_finalizer(*owner, kOrphan))
    enqueue_owner(it->second);
}

void GarbageCollector::enqueue_dependent(const ObjectRef& ref) {
  WSIM_ASSERT(!ref.name.empty());
  if (!queued_dependents_.insert(ref).second) return;
  sim_.loop().schedule(draw_delay(stream_, options_.step), [this, ref] { check_dependent(ref); });
}

void GarbageCollector::enqueue_owner(const ObjectRef& ref) {
  WSIM_ASSERT(!ref.name.empty());
  if (!queued_owners_.insert(ref).second) return;
  sim_.loop().schedule(draw_delay(stream_, options_.step), [this, ref] { process_owner(ref); });
}

void GarbageCollector::check_dependent(const ObjectRef& ref) {
  WSIM_ASSERT(!ref.kind.empty());
  queued_dependents_.erase(ref);
  const Object* live = api_.peek(ref);
  if (live == nullptr || is_deleting(*live)) return;
  const Object object = *live;
  std::vector<std::string> dangling;  // Owner uids that are gone.
  std::vector<std::string> waiting;   // Owners being deleted in the foreground.
  bool solid = false;
  for (const OwnerReference& owner : object.meta.owner_references) {
    const Object* o = api_.peek(owner_target(object, owner));
    if (o == nullptr || o->meta.uid != owner.uid) {
      dangling.push_back(owner.uid);
    } else if (is_deleting(*o) && has_finalizer(*o, kForeground)) {
      waiting.push_back(owner.uid);
    } else {
      solid = true;
    }
  }
  if (dangling.empty() && waiting.empty()) return;
  if (solid) {
    // Keep the object; drop the references to owners that are gone or going.
    Object stripped = object;
    std::erase_if(
        stripped.meta.owner_references.mutable_vector(), [&](const OwnerReference& owner) {
          return std::find(dangling.begin(), dangling.end(), owner.uid) != dangling.end() ||
                 std::find(waiting.begin(), waiting.end(), owner.uid) != waiting.end();
        });
    const Result<Object> written = api_.server_update(stripped, Subresource::kMain, kActor);
    ++counters_.dangling_stripped;
    sim_.record(kActor, "strip-owner-refs", ref.to_string(),
                written.ok() ? "ok" : code_name(written.status.code));
    return;
  }
  DeleteOptions options;
  options.precondition_uid = object.meta.uid;
  const bool has_dependents = dependents_.count(object.meta.uid) != 0;
  options.propagation =
      (!waiting.empty() && has_dependents) ? Propagation::kForeground : Propagation::kBackground;
  const Status status = api_.server_delete(ref, options, kActor);
  ++counters_.deletions;
  sim_.record(kActor, "delete", ref.to_string(), status.ok() ? "ok" : code_name(status.code),
              waiting.empty() ? "owner gone" : "owner deleting in foreground");
}

std::vector<Object> GarbageCollector::live_dependents(const std::string& owner_uid) const {
  WSIM_ASSERT(!owner_uid.empty());
  std::vector<Object> out;
  auto it = dependents_.find(owner_uid);
  if (it == dependents_.end()) return out;
  for (const ObjectRef& ref : it->second) {
    const Object* dependent = api_.peek(ref);
    if (dependent == nullptr) continue;
    for (const OwnerReference& owner : dependent->meta.owner_references) {
      if (owner.uid == owner_uid) {
        out.push_back(*dependent);
        break;
      }
    }
  }
  return out;
}

void GarbageCollector::process_owner(const ObjectRef& ref) {
  WSIM_ASSERT(!ref.kind.empty());
  queued_owners_.erase(ref);
  const Object* live = api_.peek(ref);
  if (live == nullptr || !is_deleting(*live)) return;
  const Object owner = *live;
  const std::string& uid = owner.meta.uid;
  auto remove_finalizer = [&](const char* finalizer) {
    MergePatch patch;
    patch.finalizers = without_finalizer(owner.meta.finalizers, finalizer);
    const Result<Object> written = api_.server_patch(ref, patch, Subresource::kMain, kActor);
    ++counters_.finalizers_removed;
    sim_.record(kActor, "remove-finalizer", ref.to_string(),
                written.ok() ? "ok" : code_name(written.status.code), finalizer);
  };

  if (has_finalizer(owner, kOrphan)) {
    for (Object dependent : live_dependents(uid)) {
      std::erase_if(dependent.meta.owner_references.mutable_vector(),
                    [&](const OwnerReference& o) { return o.uid == uid; });
      const Result<Object> written = api_.server_update(dependent, Subresource::kMain, kActor);
      ++counters_.orphaned;
      sim_.record(kActor, "orphan", ObjectRef::of(dependent).to_string(),
                  written.ok() ? "ok" : code_name(written.status.code), "owner " + ref.to_string());
    }
    remove_finalizer(kOrphan);
    return;
  }
  if (!has_finalizer(owner, kForeground)) return;
  for (const Object& dependent : live_dependents(uid)) {
    if (is_deleting(dependent)) continue;
    DeleteOptions options;
    options.precondition_uid = dependent.meta.uid;
    options.propagation = dependents_.count(dependent.meta.uid) != 0 ? Propagation::kForeground
                                                                     : Propagation::kBackground;
    const Status status = api_.server_delete(ObjectRef::of(dependent), options, kActor);
    ++counters_.deletions;
    sim_.record(kActor, "delete", ObjectRef::of(dependent).to_string(),
                status.ok() ? "ok" : code_name(status.code), "foreground owner " + ref.to_string());
  }
  // Dependents without finalizers may be gone already; the rest (e.g. pods in their grace
  // period) block until they are removed, which re-enqueues this owner.
  for (const Object& dependent : live_dependents(uid)) {
    for (const OwnerReference& o : dependent.meta.owner_references) {
      if (o.uid == uid && o.block_owner_deletion) return;
    }
  }
  const Object* again = api_.peek(ref);
  if (again == nullptr || again->meta.uid != uid || !has_finalizer(*again, kForeground)) return;
  MergePatch patch;
  patch.finalizers = without_finalizer(again->meta.finalizers, kForeground);
  const Result<Object> written = api_.server_patch(ref, patch, Subresource::kMain, kActor);
  ++counters_.finalizers_removed;
  sim_.record(kActor, "remove-finalizer", ref.to_string(),
              written.ok() ? "ok" : code_name(written.status.code), kForeground);
}

}  // namespace wsim::kube
