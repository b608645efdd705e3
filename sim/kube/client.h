// Client: what a reconciler sees of the Kubernetes API — the client-go of the simulation.
//
// Every call is a coroutine and an interleaving point. A call travels to the server with a
// latency drawn from the choice source, passes the fault interceptor chain (which may answer
// Conflict / 5xx / 429, drop the request, or apply it and lose the response), is applied
// atomically by the server, and the response travels back with another latency. Objects are
// returned as deep copies. A client has an identity, which RBAC-lite checks and the trace shows.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/task.h"
#include "sim/kube/object.h"
#include "sim/kube/status.h"

namespace wsim::kube {

class ApiServer;

enum class Subresource { kMain, kStatus };

enum class Propagation { kBackground, kForeground, kOrphan };

// DeleteOptions and MergePatch declare a default constructor so they are not aggregates:
// g++ 12 destroys a brace-initialised aggregate temporary twice when it lives across a co_await
// (`co_await client.remove(ref, DeleteOptions{})`), corrupting the heap.
struct DeleteOptions {
  DeleteOptions() = default;
  Propagation propagation = Propagation::kBackground;
  std::optional<std::string> precondition_uid;
  std::optional<std::uint64_t> precondition_resource_version;
  std::optional<std::int64_t> grace_period_ms;  // Pods only; default from the pod / kubelet.
};

// A JSON merge patch restricted to the shapes reconcilers use. A key mapped to nullopt is
// removed. Without a precondition a merge patch never conflicts.
struct MergePatch {
  MergePatch() = default;
  std::map<std::string, std::optional<std::string>> labels;
  std::map<std::string, std::optional<std::string>> annotations;
  std::map<std::string, std::optional<std::string>> spec;
  std::map<std::string, std::optional<std::string>> status;  // Only with Subresource::kStatus.
  std::map<std::string, std::optional<std::string>> data;
  std::optional<std::vector<std::string>> finalizers;  // Replaces the whole list.
  std::optional<std::vector<Condition>> conditions;    // Only with Subresource::kStatus.
  std::optional<std::uint64_t> precondition_resource_version;
};

class Client {
 public:
  Client(ApiServer* server, std::string identity)
      : server_(server), identity_(std::move(identity)) {
    WSIM_ASSERT(server_ != nullptr);
  }

  const std::string& identity() const { return identity_; }

  Task<Result<Object>> get(ObjectRef ref);
  // Sorted by namespace, then name. Empty namespace = all namespaces.
  Task<Result<std::vector<Object>>> list(std::string kind, std::string namespace_,
                                         LabelSelector selector = {});
  // AlreadyExists if the name is taken; Forbidden in a Terminating namespace; NotFound if the
  // namespace does not exist.
  Task<Result<Object>> create(Object object);
  // Conflict if object.meta.resource_version is not the current one. kMain ignores status
  // changes, kStatus ignores everything but status and conditions.
  Task<Result<Object>> update(Object object, Subresource subresource = Subresource::kMain);
  Task<Result<Object>> patch(ObjectRef ref, MergePatch patch,
                             Subresource subresource = Subresource::kMain);
  // NotFound if absent; a no-op (Ok) if already being deleted — except namespaces, which answer
  // Conflict while Terminating.
  Task<Status> remove(ObjectRef ref, DeleteOptions options = {});
  // Server-side-apply-like create-or-update with force: labels, annotations, spec and data of
  // `object` are merged over the live object (keys not in `object` are kept).
  Task<Result<Object>> apply(Object object, std::string field_manager);

 private:
  ApiServer* server_;
  std::string identity_;
};

}  // namespace wsim::kube
