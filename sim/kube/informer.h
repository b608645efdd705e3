// Informer: a client-go-like cache of one kind, filled by list + watch.
//
// The cache lags the server: watch events are delivered with a per-watcher latency drawn from the
// choice source, in order. It never shows a deletion before it happened. When the server expires
// the watch (410 Gone) the informer relists. Reads are synchronous (like a lister) and return deep
// copies.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
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
  // Retry delay after a failed list or watch request, doubled up to 32x (client-go's reflector
  // backs off likewise).
  DurationMs retry_backoff_ms = 1 * kSecondMs;
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

  // Cache snapshot, sorted by namespace/name.
  std::vector<Object> list() const;
  std::optional<Object> get(const std::string& namespace_, const std::string& name) const;

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
