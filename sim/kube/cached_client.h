// CachedClient: controller-runtime's default client (manager.GetClient()) — reads from the
// manager's informer cache, writes to the API server.
//
// Upstream: kubernetes-sigs/controller-runtime pkg/client/split.go (delegating client: Get and
// List through the cache reader, everything else through the direct client) and
// pkg/cache/informer_cache.go (Get/List of a kind start that kind's informer on first use and
// block until it synced), at v0.19.7 (ws-manager-mk2 and ws-daemon @ 4f45d02eac95). `reader()` is
// manager.GetAPIReader(): reads that go to the API server.
//
// Consequence worth knowing (and the reason this exists): a Get → modify → Update loop over the
// cache sends the cached resourceVersion. While the informer lags behind a write, every retry
// reads the same stale object and gets 409 Conflict, so client-go's RetryOnConflict can exhaust
// its steps; conflicts correlate with informer lag instead of being independent faults.
//
// Contract:
//  - get(): NotFound when the cache has no such object (including objects created on the server
//    but not yet seen by the informer); returns a deep copy with the cached resourceVersion.
//  - list(): cache contents of the kind, filtered by namespace ("" = all) and label selector,
//    sorted by namespace then name.
//  - A kind without an informer gets one on first read (all namespaces, no resync), started and
//    awaited until synced (polled every kSyncPollMs), like controller-runtime's lazily created
//    informers. `share()` makes reads of a kind use an informer the caller already runs (a
//    controller's watch source: one cache per manager; it replaces an informer this client
//    started for the kind). A shared informer must stay alive while shared; unshare it before
//    destroying it. A read never holds an informer across a suspension, so an informer replaced
//    while a read waits for sync is not touched again.
//  - Writes and `reader()` are the plain Client (latency, faults, RBAC) with the same identity.
//  - Destroy (or stop()) before the ApiServer and the Sim.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/core/task.h"
#include "sim/kube/client.h"
#include "sim/kube/informer.h"
#include "sim/kube/object.h"

namespace wsim::kube {

class CachedClient {
 public:
  CachedClient(Sim& sim, ApiServer& server, std::string identity);
  ~CachedClient();
  CachedClient(const CachedClient&) = delete;
  CachedClient& operator=(const CachedClient&) = delete;

  const std::string& identity() const { return writer_.identity(); }

  // Reads of `kind` come from `informer` (not owned; nullptr = unshare).
  void share(const std::string& kind, Informer* informer);
  // Stops the informers this client created (shared ones are left alone).
  void stop();

  // --- Reads from the cache. ---
  Task<Result<Object>> get(ObjectRef ref);
  Task<Result<std::vector<Object>>> list(std::string kind, std::string namespace_,
                                         LabelSelector selector = {});

  // --- Writes to the API server. ---
  Task<Result<Object>> create(Object object) { return writer_.create(std::move(object)); }
  Task<Result<Object>> update(Object object, Subresource subresource = Subresource::kMain) {
    return writer_.update(std::move(object), subresource);
  }
  Task<Result<Object>> patch(ObjectRef ref, MergePatch patch,
                             Subresource subresource = Subresource::kMain) {
    return writer_.patch(std::move(ref), std::move(patch), subresource);
  }
  Task<Status> remove(ObjectRef ref, DeleteOptions options = {}) {
    return writer_.remove(std::move(ref), std::move(options));
  }

  // manager.GetAPIReader(): the uncached client (reads go to the API server).
  Client& reader() { return writer_; }

  // Diagnostics: the informer serving `kind`, nullptr if none yet.
  const Informer* informer_for(const std::string& kind) const;

 private:
  // The informer for `kind`, created and started on first use.
  Informer& informer(const std::string& kind);
  // Until the informer serving `kind` (looked up anew after every wait) has synced.
  Task<void> wait_synced(std::string kind);

  static constexpr DurationMs kSyncPollMs = 10;

  Sim& sim_;
  ApiServer& server_;
  Client writer_;
  std::map<std::string, std::unique_ptr<Informer>> owned_;
  std::map<std::string, Informer*> shared_;
};

}  // namespace wsim::kube
