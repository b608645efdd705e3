// ObjectStore: the objects of the fake API server and the write rules of sim/kube/README.md
// (uid, resourceVersion, generation, finalizers, deletionTimestamp, grace periods, namespace
// lifecycle), with the per-kind strategy read from the kind registry (kinds.h). sim/kube
// internal: the ApiServer (api_server_impl.h) owns one.
//
// Single-threaded, runs on the event loop.
//
// Invariants (asserted):
//  1. resourceVersion strictly increases on every write, and every write emits exactly one
//     Change to the watch hub with that resourceVersion (paired: watch_hub.cc emit()).
//  2. The hash index `by_ref_` holds exactly the stored objects (its size is object_count()).
//  3. A stored object's ref is normalized: a cluster-scoped kind has no namespace.
//  4. An update never changes uid or creation time; generation never decreases.
//
// Not modelled: field validation beyond the metadata rules, admission webhooks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/api_server.h"

namespace wsim::kube {

class WatchHub;

class ObjectStore {
 public:
  // `hub` receives every committed change (emit); both outlive nothing of each other's.
  ObjectStore(Sim& sim, const ApiServerOptions& options, WatchHub& hub)
      : sim_(sim), options_(options), hub_(hub) {}
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // `ref` with the namespace of a cluster-scoped kind cleared.
  static ObjectRef normalize(ObjectRef ref);
  // The stored object at `ref` (normalized here), or null when absent. The slot stays valid until
  // the object is next written or removed.
  const std::shared_ptr<const Object>* find(const ObjectRefView& ref) const;
  const std::shared_ptr<const Object>* find(const ObjectRef& ref) const {
    return find(ObjectRefView{ref.kind, ref.namespace_, ref.name});
  }
  // The stored objects of `kind` (non-empty) in `namespace_` (empty = all) that `selector`
  // matches, sorted by (namespace, name): a list's items, shared.
  std::vector<std::shared_ptr<const Object>> list(const std::string& kind,
                                                  const std::string& namespace_,
                                                  const LabelSelector& selector) const;
  // The same as views; empty `kind` = every kind (sorted by namespace, name, kind).
  std::vector<const Object*> peek_list(const std::string& kind, const std::string& namespace_,
                                       const LabelSelector& selector) const;

  // The verbs (sim/kube/README.md): each validates, applies the kind's strategy and commits.
  Result<Object> create(Object object);
  Result<Object> update(Object object, Subresource subresource);
  Result<Object> patch(const ObjectRef& ref, const MergePatch& patch, Subresource subresource);
  Status remove(const ObjectRef& ref, const DeleteOptions& options);
  Result<Object> apply(Object object);
  // Removes `ref` for good when it is deleting and nothing holds it; ends a pod's grace period.
  void finalize(const ObjectRef& ref);

  std::uint64_t resource_version() const { return resource_version_; }
  std::size_t object_count() const { return object_count_; }

 private:
  // Ordered like std::map<ObjectRef, ...> and std::less<>, compared inline; ObjectRefLess also
  // finds by ObjectRefView (no ObjectRef built per lookup: docs/performance.md §10).
  using KindStore = std::map<ObjectRef, std::shared_ptr<const Object>, ObjectRefLess>;
  struct KindLess {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const {
      return ObjectRef::compare_bytes(a, b) < 0;
    }
  };

  // The store of `kind`, or null (store_of) / created empty (store_for).
  const KindStore* store_of(std::string_view kind) const { return find_store(kind); }
  KindStore& store_for(const std::string& kind);
  // The one scan of kind_index_ behind both (its pointers are to the mutable stores of kinds_).
  KindStore* find_store(std::string_view kind) const;
  // Writes `updated` over the stored object at `ref` (Modified), or removes it (Deleted) when
  // it is deleting and nothing holds it any more. Returns the committed state.
  std::shared_ptr<const Object> commit(const ObjectRef& ref, Object updated);
  // The store's slot at `ref` (normalized), created empty and indexed when absent.
  std::shared_ptr<const Object>& slot_for(const ObjectRef& ref);
  std::shared_ptr<const Object> erase(const ObjectRef& ref, Object last);
  // Deleting, no finalizers left and nothing else of its kind's strategy holding it.
  static bool removable(const Object& object);
  // The checks a create makes before it writes (kind, name, namespace and its lifecycle,
  // existence); Ok when the object may be created.
  Status check_create(const ObjectRef& ref) const;

  Sim& sim_;
  const ApiServerOptions& options_;
  WatchHub& hub_;
  std::map<std::string, KindStore, KindLess> kinds_;  // Never erased: its nodes stay put.
  // The same stores in creation order, found by a linear scan of their kinds: a run has a
  // handful of kinds, and an equality test (length first) is cheaper than the tree's ordered
  // compares on every lookup (docs/performance.md §13.3). The views point into `kinds_`' keys.
  std::vector<std::pair<std::string_view, KindStore*>> kind_index_;
  // Every stored object's slot by its ref (kind, namespace, name; normalized), found by hashing
  // the three strings instead of the kind store's ordered search, which compares the namespace
  // and name with eight stored keys or so per lookup (docs/performance.md §14.2). The keys view
  // the KindStore nodes' own keys (a std::map's nodes never move); never iterated, so its order
  // reaches nothing. commit() adds a slot's entry when it creates the slot, erase() removes it
  // with the slot: the index holds exactly the stored objects (asserted against object_count_).
  RefHashIndex<ObjectRefView, KindStore::iterator> by_ref_;
  std::uint64_t resource_version_ = 0;
  std::uint64_t next_uid_ = 0;
  std::size_t object_count_ = 0;
};

}  // namespace wsim::kube
