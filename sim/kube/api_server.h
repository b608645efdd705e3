// ApiServer: the in-memory Kubernetes API server. Behaviour and its conformance tests are listed
// in sim/kube/README.md. Clients (client.h) reach it with latency and faults; built-in
// controllers (sim/kube/controllers) act through the synchronous server_* methods, which run the
// same validation and admission as client requests and notify watchers, but take no latency and
// see no faults (they are the cluster itself).
#pragma once

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

struct WatchEvent {
  WatchEventType type;
  Object object;  // For kDeleted: the last state.
};

struct ApiServerOptions {
  DurationMs min_latency_ms = 1;   // Per direction, for client requests.
  DurationMs max_latency_ms = 20;
  DurationMs client_timeout_ms = 30 * kSecondMs;  // When a request or response is lost.
  DurationMs watch_min_latency_ms = 1;
  DurationMs watch_max_latency_ms = 200;
};

// Verbs for RBAC and fault rules.
enum class Verb { kGet, kList, kWatch, kCreate, kUpdate, kPatch, kDelete };
const char* verb_name(Verb verb);

class ApiServer {
 public:
  ApiServer(Sim& sim, ApiServerOptions options = {});
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  Sim& sim() { return sim_; }
  const ApiServerOptions& options() const { return options_; }
  Client client(std::string identity) { return Client(this, std::move(identity)); }

  // RBAC-lite: everything is allowed unless denied. Empty kind = every kind.
  void deny(const std::string& identity, Verb verb, const std::string& kind);

  // --- Synchronous access for the cluster side and the harness (no latency, no faults). ---
  const Object* peek(const ObjectRef& ref) const;
  std::vector<const Object*> peek_list(const std::string& kind, const std::string& namespace_,
                                       const LabelSelector& selector = {}) const;
  Result<Object> server_create(Object object, const std::string& actor);
  Result<Object> server_update(Object object, Subresource subresource, const std::string& actor);
  Result<Object> server_patch(const ObjectRef& ref, const MergePatch& patch,
                              Subresource subresource, const std::string& actor);
  Status server_delete(const ObjectRef& ref, const DeleteOptions& options,
                       const std::string& actor);
  Result<Object> server_apply(Object object, const std::string& field_manager,
                              const std::string& actor);
  // Removes the object for good once it has a deletionTimestamp and no finalizers left
  // (called by the server itself after every write; exposed for controllers that finish a
  // pod's grace period).
  void server_finalize(const ObjectRef& ref, const std::string& actor);

  // Server-side subscription to every change of `kind` (empty = all kinds), delivered
  // synchronously after the write. For built-in controllers only.
  using Listener = std::function<void(const WatchEvent& event)>;
  void subscribe(const std::string& kind, Listener listener);

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
