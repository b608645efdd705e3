// Informer: a client-go-like cache of one kind, filled by list + watch.
//
// The cache lags the server: watch events are delivered with a per-watcher latency drawn from the
// choice source, in order. It never shows a deletion before it happened. When the server expires
// the watch (410 Gone) the informer relists after client-go's reflector backoff (0.8 s or more,
// backoff_manager.h), its cache unchanged and blind in between; failed lists and watches back off
// the same way. A watch that ends without 410 (kube.watch.drop) is re-opened at once from the
// last resourceVersion the cache saw, like client-go's reflector. Reads are synchronous (like a
// lister). The cache holds shared immutable snapshots (the very objects the server committed):
// list()/get() return deep copies for a caller that mutates; list_shared()/get_shared()/by_index()
// hand out const views without copying (a view stays valid while the caller holds it, whatever the
// cache does next).
//
// Indexes (client-go cache.Indexers): add_index(name, fn) keeps, for every value fn returns for
// a cached object, the set of objects with that value; by_index(name, value) answers without
// scanning the cache. An index is maintained on every cache change (watch event or relist).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/event_loop.h"
#include "sim/core/sim.h"
#include "sim/core/task.h"
#include "sim/kube/object.h"

namespace wsim::kube {

class ApiServer;

struct InformerOptions {
  std::string identity;  // The client identity (RBAC, trace).
  std::string kind;
  std::string namespace_;  // Empty = all namespaces.
  LabelSelector selector;
  DurationMs resync_ms = 0;  // 0 = no periodic resync notifications.
  // Record every cache change in the trace: actor "<identity>/informer", verb "watch", the
  // object, result "added" / "modified" / "deleted".
  bool trace_changes = true;
};

class Informer {
 public:
  Informer(Sim& sim, ApiServer& server, InformerOptions options);
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Starts the list+watch actor. Idempotent.
  void start();
  // Stops the watch; the cache stays readable but no longer changes.
  void stop();
  bool synced() const;
  // Completes once the initial list is in the cache.
  Task<void> wait_synced();

  // Cache snapshot, sorted by namespace/name (deep copies).
  std::vector<Object> list() const;
  std::optional<Object> get(std::string_view namespace_, std::string_view name) const;

  // The same without copies: shared const views (never null), sorted by namespace/name; nullptr
  // when absent.
  using ObjectView = std::shared_ptr<const Object>;
  std::vector<ObjectView> list_shared() const;
  // Keys are views: a name or a `const char*` namespace builds no string per read.
  ObjectView get_shared(std::string_view namespace_, std::string_view name) const;
  std::size_t size() const;

  // client-go Indexers: `index` maps an object to its index values (may be empty). REQUIRES: the
  // name is not taken and `index` is deterministic (a pure function of the object). The index
  // covers the current cache at once and every later change.
  using IndexFunc = std::function<std::vector<std::string>(const Object& object)>;
  void add_index(const std::string& name, IndexFunc index);
  // Cached objects whose index `name` contains `value`, sorted by namespace/name.
  // REQUIRES: add_index(name, ...) was called.
  std::vector<ObjectView> by_index(const std::string& name, const std::string& value) const;

  // Called after each change is applied to the cache (add/update: deleted=false). Controllers use
  // it to enqueue keys (controller-runtime style).
  void on_change(std::function<void(const Object& object, bool deleted)> handler);

  // Diagnostics (tests, explain): how many times the informer listed (1 + relists), and the
  // resourceVersion of the newest change in the cache (list or watch event).
  std::uint64_t list_count() const;
  std::uint64_t last_resource_version() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wsim::kube
