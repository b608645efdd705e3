// ApiServer: the in-memory Kubernetes API server. Behaviour and its conformance tests are listed
// in sim/kube/README.md. Clients (client.h) reach it with latency and faults; built-in
// controllers (sim/kube/controllers) act through the synchronous server_* methods, which run the
// same validation and admission as client requests and notify watchers, but take no latency and
// see no faults (they are the cluster itself).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/core/sim.h"
#include "sim/kube/client.h"
#include "sim/kube/object.h"
#include "sim/kube/status.h"

namespace wsim::kube {

enum class WatchEventType { kAdded, kModified, kDeleted };

// What a server-side listener gets: const views of the committed object and of the state stored
// before it, valid during the call only (copy what must outlive it). No copy is made per listener.
struct WatchEvent {
  WatchEventType type;
  // The state written; for kDeleted the last state (the one that made the object removable, e.g.
  // its last finalizer gone).
  const Object& object;
  const Object* previous = nullptr;  // The state stored before; nullptr for kAdded.
};

// When a server-side listener (ApiServer::subscribe) hears of a change.
enum class ListenAt {
  // After the write, in resourceVersion order, once every watch was offered the change. May
  // write: a write made by a listener is delivered (to every listener) after the current change
  // has reached all listeners, so the store may already be ahead of the event being delivered.
  // For built-in controllers and the systems' checkers.
  kInOrder,
  // Inside the write, at once, never behind the store: for indexes kept beside the store (the
  // scheduler's per-node usage) and the world's runtime oracles (conformance.h). Must not write,
  // draw choices or trace (the run is the same run with or without it). Per-kind listeners of
  // this timing run before the all-kind ones, so an index is up to date when an oracle looks.
  kInsideWrite,
};

struct ApiServerOptions {
  DurationMs min_latency_ms = 1;  // Per direction, for client requests.
  DurationMs max_latency_ms = 20;
  DurationMs client_timeout_ms = 30 * kSecondMs;  // When a request or response is lost.
  DurationMs watch_min_latency_ms = 1;
  DurationMs watch_max_latency_ms = 200;
  // How many past changes the server keeps for watches that start from an older
  // resourceVersion; a watch from before the window gets 410 Gone (the informer relists).
  std::size_t watch_history_events = 1000;
  // The watch cache's window per kind (k8s.io/apiserver cacher watch_cache.go: a per-resource
  // buffer of at least defaultLowerBoundCapacity = 100 events): a watch of one kind from before
  // the newest `watch_cache_events_per_kind` changes of that kind gets 410 Gone too, even when
  // the shared history above still holds them. 0 = only the shared history. Applied only in runs
  // where the kube.watch.drop point is enabled (so that the runs without it are unchanged). The
  // real buffer also grows to keep 75 s of events (resizeCacheLocked); that is not modelled
  // (sim/kube/README.md).
  std::size_t watch_cache_events_per_kind = 100;
  // Server-side apply writes (bumps resourceVersion, emits MODIFIED) even when nothing changed,
  // as the GitLab Rails code observes ("Kubernetes updates the deployment_resource_version every
  // time a new config is applied"). Update and patch never write when nothing changes.
  bool apply_always_writes = true;
  // Install the default interceptor rules (one per kube.api.* fault point, matching every
  // request). clear_interceptors() removes them.
  bool default_fault_rules = true;
};

// Verbs for RBAC and fault rules.
enum class Verb { kGet, kList, kWatch, kCreate, kUpdate, kPatch, kDelete, kApply };
const char* verb_name(Verb verb);  // "get", "list", ..., "apply"

// --- Fault interceptor chain (docs/architecture.md §3 "faults") ---
// Stable fault point names, declared on sim.faults() by the ApiServer constructor.
inline constexpr const char* kFaultConflict = "kube.api.conflict";
inline constexpr const char* kFaultError5xx = "kube.api.error5xx";
inline constexpr const char* kFaultThrottle = "kube.api.throttle";
inline constexpr const char* kFaultLostRequest = "kube.api.timeout_lost_request";
inline constexpr const char* kFaultLostResponse = "kube.api.timeout_lost_response";
inline constexpr const char* kFaultWatchExpire = "kube.watch.expire";
// A watch ends without 410 (a dropped connection, a server-side watch timeout); second swarm
// stream (sim/core/fault.h).
inline constexpr const char* kFaultWatchDrop = "kube.watch.drop";
inline constexpr const char* kFaultApiServerRestart = "kube.apiserver.restart";

// Which requests a rule applies to. Empty / nullopt fields match anything.
struct RequestMatch {
  std::optional<Verb> verb;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string identity;  // The client identity.
};

enum class FaultAction {
  kConflict,            // 409 without applying (update, patch, delete, apply only).
  kError5xx,            // 500 or 503 (drawn) without applying.
  kInternalError,       // 500 without applying.
  kServiceUnavailable,  // 503 without applying.
  kThrottle,            // 429 without applying.
  kLoseRequest,         // Not applied; the client gets Timeout after client_timeout_ms.
  kLoseResponse,        // Applied; the client gets Timeout after client_timeout_ms.
};
const char* fault_action_name(FaultAction action);

// One link of the interceptor chain. A rule fires when a request matches and either
//  - `fault` names a fault point (e.g. kFaultConflict) and sim.faults().fires() says so, or
//  - `fault` is empty: the rule is scripted and fires deterministically.
// Either way nothing fires after sim.faults().heal(). `times` limits how often it may fire
// (-1 = unlimited); a rule that has used up its `times` stays in the chain, inert.
struct InterceptorRule {
  RequestMatch match;
  FaultAction action = FaultAction::kConflict;
  std::string fault;
  int times = -1;
  std::string message;  // Optional error message; a Kubernetes-like default otherwise.
};
using InterceptorId = std::uint32_t;

class ApiServer {
 public:
  ApiServer(Sim& sim, ApiServerOptions options = {});
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  Sim& sim() { return sim_; }
  const ApiServerOptions& options() const { return options_; }
  Client client(std::string identity) { return Client(this, std::move(identity)); }

  // RBAC-lite: everything is allowed unless denied. Empty kind = every kind. Apply needs
  // "patch" (and "create" when the object does not exist yet), like server-side apply.
  void deny(const std::string& identity, Verb verb, const std::string& kind);
  // Lifts a deny() (exactly the same triple).
  void allow(const std::string& identity, Verb verb, const std::string& kind);

  // Fault interceptor chain, evaluated in insertion order for every client request (never for
  // server_* calls); the first rule that fires decides. Returns the rule's id.
  InterceptorId add_interceptor(InterceptorRule rule);
  void remove_interceptor(InterceptorId id);
  // Removes every rule, including the default ones.
  void clear_interceptors();
  // How often a rule fired so far.
  int interceptor_fired(InterceptorId id) const;
  // Closes every open watch (of `identity`, or all when empty) with 410 Gone, delivered after
  // the events already on their way: the informers relist (the scripted form of the
  // kube.watch.expire fault).
  void expire_watches(const std::string& identity = {});
  // Ends every open watch (of `identity`, or all when empty) without 410, after the events
  // already on their way: the informers re-watch from their last resourceVersion (the scripted
  // form of the kube.watch.drop fault).
  void drop_watches(const std::string& identity = {});
  // Number of open watches (informers currently watching).
  std::size_t watch_count() const;

  // --- Synchronous access for the cluster side and the harness (no latency, no faults). ---
  // Pointers stay valid until the object is next written or removed.
  const Object* peek(const ObjectRef& ref) const;
  // The same by a view of the ref's parts (no strings copied to build an ObjectRef).
  const Object* peek(const ObjectRefView& ref) const;
  // Sorted by namespace, name (then kind). Empty kind = every kind (e.g. all content of a
  // namespace); empty namespace = every namespace.
  std::vector<const Object*> peek_list(const std::string& kind, const std::string& namespace_,
                                       const LabelSelector& selector = {}) const;
  // Number of stored objects (all kinds).
  std::size_t object_count() const;
  Result<Object> server_create(Object object, const std::string& actor);
  Result<Object> server_update(Object object, Subresource subresource, const std::string& actor);
  Result<Object> server_patch(const ObjectRef& ref, const MergePatch& patch,
                              Subresource subresource, const std::string& actor);
  Status server_delete(const ObjectRef& ref, const DeleteOptions& options,
                       const std::string& actor);
  Result<Object> server_apply(Object object, const std::string& field_manager,
                              const std::string& actor);
  // Deletion semantics (sim/kube/README.md): an object without finalizers is removed at once;
  // otherwise deletion_ms is set (= now) and it waits for its finalizers. Pods bound to a node
  // (spec nodeName set, phase not Succeeded/Failed) get a grace period instead: deletion_ms =
  // now + grace (the deadline, as Kubernetes' deletionTimestamp) and deletion_grace_period_ms =
  // grace (DeleteOptions.grace_period_ms, else spec "terminationGracePeriodMs", else 30 s); the
  // kubelet removes them with server_finalize (or a delete with grace_period_ms = 0). A second
  // delete of a pending pod with a shorter grace period shortens it.
  //
  // Removes the object for good once it has a deletionTimestamp and no finalizers left (for a
  // Namespace also no spec "finalizers"; for a pod in its grace period: ends the grace period
  // first, like the kubelet's final delete with grace 0). Called by the server itself after
  // every write; exposed for the kubelet. No-op for objects that are absent or not deleting.
  void server_finalize(const ObjectRef& ref, const std::string& actor);

  // The one way to listen to the server: every committed change of `kind` (empty = all kinds),
  // delivered synchronously at the time `at` says (ListenAt), each listener of a timing in the
  // order subscribed. Objects stored before the call are not replayed: peek_list() them first.
  // Server-side: never delayed, never faulted (the cluster itself, the harness, front-ends).
  using Listener = std::function<void(const WatchEvent& event)>;
  void subscribe(const std::string& kind, Listener listener, ListenAt at = ListenAt::kInOrder);

  // What every informer of this server holds (for the world's oracles, conformance.h): one entry
  // per informer that is started, not stopped, synced and currently watching, in the order the
  // informers were created. The cache entries are (object, resourceVersion), sorted.
  struct InformerCacheView {
    std::string identity;
    std::string kind;
    std::string namespace_;
    LabelSelector selector;
    std::vector<std::pair<ObjectRef, std::uint64_t>> cache;
  };
  std::vector<InformerCacheView> informer_caches() const;

  std::uint64_t current_resource_version() const;

  struct Impl;

 private:
  Sim& sim_;
  ApiServerOptions options_;
  std::unique_ptr<Impl> impl_;
  friend class Client;
  friend class Informer;
};

}  // namespace wsim::kube
